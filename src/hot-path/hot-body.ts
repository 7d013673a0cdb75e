/**
 * Which requests the hot path reads, and what their body asks for: Yoga's own POST shape from a
 * caller that names itself (a cookie or Authorization), and a JSON body of exactly
 * `{documentId | query, variables?, operationName?}` naming a hot document
 * (fast-path/hot-documents.ts) whose variables graphql-js accepts. Anything else is the
 * pipeline's to read, before the hot path has made anything of it.
 */
import type { IncomingMessage } from 'node:http';
import { getDocumentString } from '@envelop/core';
import { getVariableValues, print, type GraphQLSchema } from 'graphql';
import { normalized } from '../documents/document-id';
import { MAX_HOT_BODY, type HotDocuments } from '../fast-path/hot-documents';
import type { HotCall } from './hot-step';

const BODY_KEYS = new Set(['documentId', 'query', 'variables', 'operationName']);

/**
 * Whether the headers alone allow the hot path. Each condition stands for a step of the pipeline's
 * the hot path does without (src/gateway/execute-steps.ts names them).
 */
export function eligible(req: IncomingMessage): boolean {
  const { headers } = req;
  if (req.method !== 'POST' || req.url !== '/graphql') return false;
  const length = Number(headers['content-length']);
  if (!(length > 0 && length <= MAX_HOT_BODY)) return false;
  const type = headers['content-type'];
  if (type !== 'application/json' && !type?.startsWith('application/json;')) return false;
  // An Idempotency-Key names a mutation's run; these are queries: the pipeline says what it means.
  if (headers['idempotency-key'] !== undefined) return false;
  return headers.cookie !== undefined || headers.authorization !== undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body's call, or undefined when the pipeline must read it (any other shape, refused variables). */
export function hotCallOf(hot: HotDocuments, schema: GraphQLSchema, body: Buffer): HotCall | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || Object.keys(parsed).some((key) => !BODY_KEYS.has(key))) return undefined;
  const { documentId, query, variables, operationName } = parsed;
  // A document id, or the text of a hot document (never both).
  if (typeof documentId === typeof query || (documentId !== undefined && typeof documentId !== 'string') || (query !== undefined && typeof query !== 'string')) return undefined;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  const entry = typeof documentId === 'string' ? hot.get(normalized(documentId)) : typeof query === 'string' ? hot.byText(query) : undefined;
  if (!entry || (typeof operationName === 'string' && operationName !== entry.operationName)) return undefined;
  const given = variables ?? undefined;
  let coerced: Readonly<Record<string, unknown>> = {};
  const definitions = entry.executed.operation.variableDefinitions ?? [];
  if (definitions.length > 0) {
    const values = getVariableValues(schema, definitions, given ?? {}, { maxErrors: 50 });
    if (values.errors) return undefined;
    coerced = values.coerced;
  }
  // The pipeline parses a text (envelop registers the text as its string); a trusted document is
  // the one parsed at start, whose string is what the pipeline registered when it ran it.
  const documentString = typeof query === 'string' ? query : getDocumentString(entry.document, print);
  return { entry, documentString, ...(typeof query === 'string' ? { query } : {}), variables: given, coerced, operationName: operationName ?? undefined };
}
