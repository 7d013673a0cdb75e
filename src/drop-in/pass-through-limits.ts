/**
 * The gateway's answer-size limits on GraphQL the drop-in front passes through without running it
 * (no credential in the headers, one the upstream has not accepted yet, or devise's credential in
 * the body): the query-text and token limits and the PDFs per answer, the same caps as a request
 * the gateway runs. Without them a body credential asked for 3,000 PDFs (24 MB held in memory per
 * request) where the gateway's own path refuses over 500. A body the gateway cannot read is left
 * to the upstream, which answers it as it would.
 */
import { GraphQLError, parse, type DocumentNode, type GraphQLSchema } from 'graphql';
import { gatewayError, type GatewayError } from '../errors';
import { MAX_PDFS_PER_ANSWER, pdfsSelected } from '../protection/pdf-answer-limit';
import { QUERY_LIMITS, queryTextRefusal } from '../protection/use-query-limits';
import { bodyParams } from './body-params';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `variables` as an object, or as its JSON text (a form's field); anything else counts as none. */
function variablesOf(value: unknown): Record<string, unknown> {
  if (typeof value !== 'string') return isObject(value) ? value : {};
  try {
    const parsed = JSON.parse(value) as unknown;
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

export function passThroughRefusal(body: ArrayBuffer | undefined, contentType: string | null, schema: GraphQLSchema | undefined, maxQueryBytes: number): GatewayError | undefined {
  if (!body || !schema) return undefined;
  const params = bodyParams(body, contentType);
  if (params === 'unsupported') return gatewayError('BAD_REQUEST', 'Send the GraphQL request as JSON (or a URL-encoded form).', { status: 415 });
  if (!params || typeof params.query !== 'string') return undefined;
  const tooLong = queryTextRefusal(params.query, maxQueryBytes);
  if (tooLong) return tooLong;
  let document: DocumentNode;
  try {
    document = parse(params.query, { maxTokens: QUERY_LIMITS.tokens });
  } catch (error) {
    // graphql-js stops at the token limit with a syntax error of its own.
    if (error instanceof GraphQLError && /tokens/.test(error.message)) return gatewayError('QUERY_TOO_COMPLEX', `Query too complex: more than ${QUERY_LIMITS.tokens} tokens.`);
    return undefined;
  }
  let pdfs: number;
  try {
    pdfs = pdfsSelected(schema, document, typeof params.operationName === 'string' ? params.operationName : null, variablesOf(params.variables)).pdfs;
  } catch {
    return undefined;
  }
  if (pdfs <= MAX_PDFS_PER_ANSWER) return undefined;
  return gatewayError('QUERY_TOO_COMPLEX', `The query can answer with up to ${pdfs} PDFs; at most ${MAX_PDFS_PER_ANSWER} are allowed per request.`);
}
