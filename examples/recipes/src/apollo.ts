/**
 * Apollo Client (4) on the gateway, as docs/frontends.md shows it and test/e2e/client-recipes.test.ts
 * drives it in Chromium:
 * - `credentials: 'include'` and `X-CSRF: 1` on every request (the session is an HttpOnly cookie;
 *   the gateway refuses a cookie request without X-CSRF);
 * - documents by hash: the persisted-query link sends codegen's id (`__meta__.hash`, the key in
 *   the manifest TRUSTED_DOCUMENTS_FILE reads); a gateway that lacks it answers
 *   PERSISTED_QUERY_NOT_FOUND and the link sends the text; one with no manifest answers
 *   PERSISTED_QUERY_NOT_SUPPORTED and the link sends texts from then on;
 * - errors by the contract's code: 401/403/429/503 reach Apollo as a GraphQL error or as a
 *   ServerError holding the body as text (depending on the answer's content type); both are read;
 * - statements keyed on `otxId` (the schema has no ID): one cache entry per statement.
 */
import { ApolloClient, ApolloLink, CombinedGraphQLErrors, HttpLink, InMemoryCache, ServerError, type DocumentNode } from '@apollo/client';
import { ErrorLink } from '@apollo/client/link/error';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { print } from 'graphql';
import { problemOf, problemOfBody, type GatewayProblem } from './gateway-problem';

export interface ApolloRecipeOptions {
  /** The gateway's origin, e.g. https://api.example.com; '' when a dev proxy serves /graphql. */
  readonly gatewayUrl: string;
  /** Every failed operation, as the contract's code: show the login form, wait, or report. */
  readonly onProblem?: (problem: GatewayProblem) => void;
}

/** The contract's problem in anything Apollo reports as an operation's error. */
export function gatewayProblem(error: unknown, response?: Response): GatewayProblem {
  if (CombinedGraphQLErrors.is(error)) return problemOf(error.errors, response) ?? { code: 'UNKNOWN', message: error.message };
  if (ServerError.is(error)) return problemOfBody(error.bodyText, error.response) ?? { code: 'UNKNOWN', message: error.message, status: error.statusCode };
  return { code: 'NETWORK_ERROR', message: error instanceof Error ? error.message : String(error) };
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Codegen's id for its documents (the manifest's key); the hash of the printed text for any other. */
function documentHash(document: DocumentNode): Promise<string> | string {
  const id = (document as { __meta__?: { hash?: unknown } }).__meta__?.hash;
  return typeof id === 'string' ? id : sha256(print(document));
}

export function createApolloClient({ gatewayUrl, onProblem }: ApolloRecipeOptions): ApolloClient {
  const http = new HttpLink({ uri: `${gatewayUrl}/graphql`, credentials: 'include', headers: { 'x-csrf': '1' } });
  const problems = new ErrorLink(({ error, operation }) => {
    // HttpLink leaves the Response in the context: its status and Retry-After.
    onProblem?.(gatewayProblem(error, (operation.getContext() as { response?: Response }).response));
  });
  const persisted = new PersistedQueryLink({ generateHash: documentHash });
  return new ApolloClient({
    link: ApolloLink.from([problems, persisted, http]),
    cache: new InMemoryCache({
      // The statement types the page reads; add each F…Statement type you query.
      typePolicies: { Statement: { keyFields: ['otxId'] }, Fw2Statement: { keyFields: ['otxId'] } },
    }),
  });
}
