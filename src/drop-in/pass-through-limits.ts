/**
 * The gateway's limits on GraphQL the drop-in front passes through without running it (no
 * credential in the headers, one the upstream has not accepted yet, or devise's credential in the
 * body): the same limits as `/graphql`, in an order where a cheap bound refuses before any walk.
 *
 * 1. `readPassThrough`: the media type, the query text's length, then its tokens while parsing.
 *    What it finds (root fields, aliases included) is what the anonymous limit counts.
 * 2. `checkPassThrough`: graphql-armor's depth, alias, directive and cost rules (each bounded by
 *    the document's size: they visit every fragment once), then the PDFs per answer.
 *
 * The document is not validated (the upstream does that, and answers as it would); a check that
 * fails on it in any way refuses the request with QUERY_TOO_COMPLEX, never lets it through: a
 * document the gateway cannot measure is not sent upstream. Nor is a query text graphql-js cannot
 * parse (the upstream's own parser might read it, as a document no limit saw): `unparsable` holds
 * the parse error for the front's answer, and `forward` an empty query in its place. A body the
 * gateway cannot read as GraphQL (no `query`, JSON that is not an object) is left to the upstream,
 * which answers it.
 */
import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import { validate, type DocumentNode, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { GatewayError, gatewayError } from '../errors';
import { rootFields, selectedOperation } from '../request/root-fields';
import { pdfAnswerRefusal } from '../protection/pdf-answer-limit';
import { queryLimitRules, queryLengthRefusal, selectionsOver, selectionsRefusal } from '../protection/use-query-limits';
import { bodyParams, credentialFields, emptyQueryBody, forwardedBody } from './body-params';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The front's size limits (front-limits.ts, FRONT_LIMITS). */
export interface PassThroughLimits {
  readonly maxQueryBytes: number;
  readonly tokens: number;
  readonly selections: number;
}

/**
 * `variables` as an object, or as its JSON text (a form's field, or a string in JSON); anything
 * else counts as none. A text that JSON.parse refuses is refused: Ruby's JSON reads more than it
 * (C-style comments, for one), so such a text could be a list of 600 upstream and nothing here.
 */
function variablesOf(value: unknown): Record<string, unknown> {
  if (typeof value !== 'string') return isObject(value) ? value : {};
  if (value.trim() === '') return {};
  try {
    const parsed = JSON.parse(value) as unknown;
    return isObject(parsed) ? parsed : {};
  } catch {
    throw gatewayError('BAD_REQUEST', 'The variables are not a JSON object.', { status: 400 });
  }
}

/** A passed-through request as the gateway read it. */
export interface PassThroughRequest {
  /** The document, when the body has a query text that parses. */
  readonly document?: DocumentNode;
  /** The operation the upstream will run (graphql-js's choice), if the document names one. */
  readonly operation?: OperationDefinitionNode;
  /** Its root fields, aliases and fragments included. */
  readonly fields: readonly FieldNode[];
  readonly operationName: string | null;
  readonly variables: Record<string, unknown>;
  /** What goes upstream: the body as read (forwardedBody), with its media type when rebuilt. */
  readonly forward: { readonly body?: ArrayBuffer; readonly contentType?: string };
  /**
   * The query text does not parse: graphql-js's error (what the upstream answers it with) and the
   * body's credential fields; `forward` is then an empty query (body-params.ts, emptyQueryBody).
   */
  readonly unparsable?: { readonly error: unknown; readonly credentialFields: Readonly<Record<string, string>> };
}

/**
 * The cheap bounds: refuses (throws) a multipart body (415), a form's variables as nested
 * parameters (400), a query text over `maxQueryBytes`, and a document over the token limit (while
 * parsing) or the selection limit (one walk). `malformed` for JSON that does not parse.
 */
export function readPassThrough(body: ArrayBuffer | undefined, contentType: string | null, limits: PassThroughLimits): PassThroughRequest | 'malformed' {
  const params = bodyParams(body, contentType);
  if (params === 'malformed') return params;
  if (params === 'unsupported') throw gatewayError('BAD_REQUEST', 'Send the GraphQL request as JSON (or a URL-encoded form).', { status: 415 });
  const forward = forwardedBody(body, contentType, params);
  const unread = { fields: [], operationName: null, variables: {}, forward };
  // An empty text is no query to the upstream either (it answers "No query string was present").
  if (!params || typeof params.query !== 'string' || params.query === '') return unread;
  // Rails reads `variables[s][][otxId]=...` in a form as nested parameters, a list the PDF count
  // could not see: the gateway checks variables it can read as one object, JSON or a JSON string.
  if (Object.keys(params).some((name) => name.startsWith('variables['))) {
    throw gatewayError('BAD_REQUEST', 'Send the variables as one JSON object (in a form, `variables` as a JSON string).', { status: 400 });
  }
  const tooLong = queryLengthRefusal(params.query, limits.maxQueryBytes);
  if (tooLong) throw tooLong;
  const operationName = typeof params.operationName === 'string' ? params.operationName : null;
  const variables = variablesOf(params.variables);
  let document: DocumentNode;
  try {
    // armor's counting parser (public): its `onReject` refuses at the token past the limit, while
    // parsing; any other syntax error is answered as the upstream answers it, never sent there.
    const refuseTokens = (): never => {
      throw gatewayError('QUERY_TOO_COMPLEX', `Query too complex: more than ${limits.tokens} tokens.`);
    };
    document = new MaxTokensParserWLexer(params.query, { n: limits.tokens, noLocation: true, onReject: [refuseTokens] }).parseDocument();
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    const fields = credentialFields(params);
    return { ...unread, operationName, variables, forward: emptyQueryBody(fields), unparsable: { error, credentialFields: fields } };
  }
  if (selectionsOver(document, limits.selections)) throw selectionsRefusal(limits.selections);
  const operation = selectedOperation(document, operationName);
  return { document, ...(operation ? { operation } : {}), fields: operation ? rootFields(document, operation) : [], operationName, variables, forward };
}

/** graphql-armor's limits, then the PDFs per answer; throws QUERY_TOO_COMPLEX. */
function enforce(schema: GraphQLSchema, request: PassThroughRequest & { document: DocumentNode }): void {
  // The limit rules alone: each throws its refusal (a QUERY_TOO_COMPLEX GatewayError).
  const errors = validate(schema, request.document, queryLimitRules());
  if (errors[0]) throw errors[0];
  const { refusal } = pdfAnswerRefusal(schema, request.document, request.operationName, request.variables);
  if (refusal) throw refusal;
}

/** The expensive limits on a request `readPassThrough` admitted: throws QUERY_TOO_COMPLEX (or the walk's own GatewayError). */
export function checkPassThrough(schema: GraphQLSchema, request: PassThroughRequest): void {
  const { document } = request;
  if (!document) return;
  try {
    enforce(schema, { ...request, document });
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    // graphql-armor's refusals are GatewayErrors that say which limit (as on /graphql); anything else is only logged.
    throw gatewayError('QUERY_TOO_COMPLEX', undefined, { cause: error });
  }
}
