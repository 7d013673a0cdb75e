/**
 * The drop-in front's size limits. They are not `/graphql`'s: an API client of the upstream files
 * in bulk, and the upstream takes up to 1,000 statements per add or update call, written inline in
 * the query text (as the tutorial clients do) or passed in variables, in a body of up to 20 MiB.
 * A request the upstream documents as valid must never be refused here for its size, so each figure
 * is sized on 1,000 statements of the largest form by field count (Fw2, 60 input fields in
 * sources/statement-filing-service/forms.json), every text at its longest and `tags` at its most
 * values: about 2.5 MB of query text and 193,000 tokens (test/drop-in/bulk-uploads.test.ts builds
 * that request from the catalogue and checks it against these figures).
 *
 * What still bounds the work a document costs: the cost, depth, alias and directive limits, which
 * read selections only (arguments cost nothing there), and the selection limit below. A document's
 * tokens inside argument values are parsed and validated once each (linear), but selections are
 * what graphql-js's validation compares pairwise (OverlappingFieldsCanBeMerged): `{ a a a ... }`
 * with 100,000 fields would take minutes, so selections stay within what `/graphql`'s own token
 * limit allowed.
 */
import type { BodyLimitRule } from '../http/body-limit';
import { QUERY_LIMITS } from '../protection/use-query-limits';
import { TOO_LARGE_BODY } from './front-answers';

export const FRONT_LIMITS = {
  /** The upstream's own body limit (its Rails stack answers 413 beyond it). */
  maxBodyBytes: 20 * 1024 * 1024,
  /** The worst-case 1,000-statement text is about 2.5 MB; non-ASCII text takes up to 3 bytes a character. */
  maxQueryBytes: 8 * 1024 * 1024,
  /** The worst-case 1,000-statement add is about 193,000 tokens. */
  tokens: 250_000,
  /** Fields, fragment spreads and inline fragments in the whole document: what `/graphql`'s token limit allowed at most. */
  selections: QUERY_LIMITS.tokens / 2,
} as const;

/**
 * A refused body is read to its end (within these bounds) before the connection closes: a client
 * that reads only after it has sent its whole body (Python's http.client, most blocking clients)
 * otherwise gets a reset, a broken pipe, instead of the 413. Twice the limit covers a client that
 * sends a little over it, the case that happens by mistake.
 */
const FRONT_LINGER_BYTES = 2 * FRONT_LIMITS.maxBodyBytes;

/** The upstream's body limit and its 413 answer, for the front's paths (the edge, server.ts, picks them). */
export const FRONT_BODY_LIMIT: BodyLimitRule = {
  maxBytes: FRONT_LIMITS.maxBodyBytes,
  lingerBytes: FRONT_LINGER_BYTES,
  answer: { status: 413, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', connection: 'close' }, body: JSON.stringify(TOO_LARGE_BODY) },
};
