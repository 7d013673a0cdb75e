/**
 * POST /v2/graphql as a Rails GraphQL controller answers it: 401 with devise's `errors` list when a
 * protected operation arrives without a valid credential; otherwise 200 with the GraphQL result,
 * including parse and validation errors. Variables may be an object or a JSON string.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { execute, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { EmulatorContext } from '../graphql/context';
import { needsCredential, selectedRootFields, type DocumentCache } from '../graphql/documents';
import type { EmulatorState } from '../state';
import { SIGN_IN_REQUIRED, batchHeaders, credentialHeaders, credentialOf } from './auth';
import { sendJson, str, type Params } from './io';

export interface GraphqlOutcome {
  readonly operations: readonly string[];
  readonly uid: string | null;
  readonly status: number;
}

function variablesOf(value: unknown): Record<string, unknown> | undefined | 'invalid' {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') {
    try {
      return variablesOf(JSON.parse(value) as unknown);
    } catch {
      return 'invalid';
    }
  }
  return typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : 'invalid';
}

export function operationsOf(documents: DocumentCache, params: Params): readonly string[] {
  const query = str(params.query);
  return query ? selectedRootFields(documents.get(query), str(params.operationName)) : [];
}

export async function handleGraphql(
  state: EmulatorState, schema: GraphQLSchema, documents: DocumentCache,
  req: IncomingMessage, params: Params, res: ServerResponse,
  /** dropNextResponses: carry the request out, then close the connection instead of answering. */
  drop = false,
): Promise<GraphqlOutcome> {
  const send = (status: number, body: unknown, headers?: Record<string, string>) => (drop ? res.destroy() : sendJson(res, status, body, headers));
  const query = str(params.query);
  const prepared = query ? documents.get(query) : null;
  const operations = prepared ? selectedRootFields(prepared, str(params.operationName)) : [];
  const { uid, client, token } = credentialOf(req, params);
  const auth = state.accounts.authenticate(uid, client, token);
  if (!auth.ok && needsCredential(operations)) {
    send(401, { errors: [SIGN_IN_REQUIRED] });
    return { operations, uid: null, status: 401 };
  }
  const account = auth.ok ? auth.account : null;
  let headers: Record<string, string> = {};
  if (auth.ok && state.settings.rotateTokens) {
    const rotated = state.accounts.rotate(auth.account, auth.client, state.settings.tokenTtlSeconds);
    headers = rotated === 'batch' ? batchHeaders(auth.client, auth.account.email) : credentialHeaders(rotated);
  } else if (auth.ok) {
    headers = credentialHeaders(state.accounts.echo(auth.account, auth.client, auth.token));
  }
  const result = await run(schema, prepared, params, { state, account });
  send(200, result, headers);
  return { operations, uid: account?.email ?? null, status: 200 };
}

async function run(
  schema: GraphQLSchema, prepared: ReturnType<DocumentCache['get']> | null, params: Params, context: EmulatorContext,
): Promise<ExecutionResult | { errors: { message: string }[] }> {
  if (!prepared) return { errors: [{ message: 'No query string was present' }] };
  if (!prepared.document || prepared.errors.length > 0) return { errors: prepared.errors.map((e) => e.toJSON()) };
  const variableValues = variablesOf(params.variables);
  if (variableValues === 'invalid') return { errors: [{ message: 'Variables must be a JSON object' }] };
  return execute({
    schema,
    document: prepared.document,
    variableValues,
    operationName: str(params.operationName),
    contextValue: context,
  });
}
