/**
 * urql (@urql/core 6, Graphcache) on the gateway, as docs/frontends.md shows it and
 * test/e2e/client-recipes.test.ts drives it in Chromium:
 * - `credentials: 'include'` and `X-CSRF: 1` on every request;
 * - documents by hash, mutations too (`enableForMutation`; the login is a mutation, and a gateway
 *   with TRUSTED_DOCUMENTS_ONLY takes nothing else), by POST; a gateway with no manifest answers
 *   PERSISTED_QUERY_NOT_SUPPORTED (message `PersistedQueryNotSupported`) and the exchange sends texts
 *   from then on. urql falls back to the text on the message `PersistedQueryNotFound` only: this
 *   gateway's PERSISTED_QUERY_NOT_FOUND (another message) is an error, so deploy the manifest first;
 * - errors by the contract's code: urql parses a non-2xx JSON body into `graphQLErrors`;
 * - statements keyed on `otxId`; the payload and connection types, which have no key, are
 *   embedded in their parent (`null`), so Graphcache does not warn about them.
 */
import { Client, fetchExchange, type CombinedError } from '@urql/core';
import { cacheExchange, type Data } from '@urql/exchange-graphcache';
import { persistedExchange } from '@urql/exchange-persisted';
import { problemOf, type GatewayProblem } from './gateway-problem';

export interface UrqlRecipeOptions {
  /** The gateway's origin, e.g. https://api.example.com; '' when a dev proxy serves /graphql. */
  readonly gatewayUrl: string;
}

/** The contract's problem in an operation's `error`. */
export function gatewayProblem(error: CombinedError): GatewayProblem {
  const response = error.response as Response | undefined;
  const problem = problemOf(error.graphQLErrors, response);
  if (problem) return problem;
  return { code: 'NETWORK_ERROR', message: error.networkError?.message ?? error.message, ...(response ? { status: response.status } : {}) };
}

const byOtxId = (entity: Data) => (typeof entity.otxId === 'string' ? entity.otxId : null);
const embedded = () => null;

/** Codegen's id for its documents (the manifest's key), else urql's own hash of the text. */
async function documentHash(query: string, document: object): Promise<string> {
  const id = (document as { __meta__?: { hash?: unknown } }).__meta__?.hash;
  if (typeof id === 'string') return id;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(query));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function createUrqlClient({ gatewayUrl }: UrqlRecipeOptions): Client {
  return new Client({
    url: `${gatewayUrl}/graphql`,
    fetchOptions: { credentials: 'include', headers: { 'x-csrf': '1' } },
    exchanges: [
      cacheExchange({
        keys: {
          Statement: byOtxId,
          Fw2Statement: byOtxId,
          Session: embedded,
          GetStatementsPayload: embedded,
          GetFw2StatementsPayload: embedded,
          StatementConnection: embedded,
          Fw2StatementConnection: embedded,
        },
      }),
      persistedExchange({ preferGetForPersistedQueries: false, enableForMutation: true, generateHash: documentHash }),
      fetchExchange,
    ],
  });
}
