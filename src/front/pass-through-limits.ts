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
import { QUERY_LIMITS } from '../protection/use-query-limits';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

type GraphqlParams = Record<string, unknown>;

/**
 * The GraphQL parameters of a body, read by its media type as the upstream reads it (Rails, and the
 * emulator): JSON for a type naming json, a form for `application/x-www-form-urlencoded` (the last
 * of a repeated field; `variables` as its JSON text). Never "try JSON, then a form": a body that is
 * JSON text but sent as a form would be checked as one document and run as another. `multipart`
 * (which Rails also reads) is refused: the gateway does not read it. undefined: no parameters the
 * upstream would read either.
 */
function graphqlParams(body: ArrayBuffer, contentType: string | null): GraphqlParams | 'unsupported' | undefined {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const text = Buffer.from(body).toString('utf8');
  if (media.includes('json')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      return isObject(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  if (media === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(text);
    const last = (name: string) => form.getAll(name).at(-1);
    let variables: unknown = last('variables');
    try {
      variables = typeof variables === 'string' ? JSON.parse(variables) : variables;
    } catch {
      variables = undefined;
    }
    return { query: last('query'), operationName: last('operationName'), variables };
  }
  return media.startsWith('multipart/') ? 'unsupported' : undefined;
}

export function passThroughRefusal(body: ArrayBuffer | undefined, contentType: string | null, schema: GraphQLSchema | undefined, maxQueryBytes: number): GatewayError | undefined {
  if (!body || !schema) return undefined;
  const params = graphqlParams(body, contentType);
  if (params === 'unsupported') return gatewayError('BAD_REQUEST', 'Send the GraphQL request as JSON (or a URL-encoded form).', { status: 415 });
  if (!params || typeof params.query !== 'string') return undefined;
  if (Buffer.byteLength(params.query, 'utf8') > maxQueryBytes) {
    return gatewayError('QUERY_TOO_COMPLEX', `The query text is longer than ${maxQueryBytes} bytes; pass bulk data in variables.`);
  }
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
    pdfs = pdfsSelected(schema, document, typeof params.operationName === 'string' ? params.operationName : null, isObject(params.variables) ? params.variables : {}).pdfs;
  } catch {
    return undefined;
  }
  if (pdfs <= MAX_PDFS_PER_ANSWER) return undefined;
  return gatewayError('QUERY_TOO_COMPLEX', `The query can answer with up to ${pdfs} PDFs; at most ${MAX_PDFS_PER_ANSWER} are allowed per request.`);
}
