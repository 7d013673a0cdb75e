/**
 * Credential brokering on every upstream call Mesh makes. The call gets the three devise headers
 * of the request's identity (identity/identity.ts) and nothing of the client's request (no cookie,
 * no X-CSRF, no API key). The identity keeps what the answer says (a rotated token) and decides
 * what an upstream 401 means (a session ends, a service account signs in again once, the drop-in
 * front passes the upstream's answer on).
 */
import type { MeshFetch, MeshPlugin } from '@graphql-mesh/types';
import { GatewayError } from '../errors';
import { isIdentityContext, type IdentityContext } from '../identity/use-identity';
import type { UpstreamFetch } from './fetch';
import { noteUpstreamAnswered, noteUpstreamFailure } from './outcome';

export interface CredentialBrokerOptions {
  readonly upstreamFetch: UpstreamFetch;
}

/** Only these request headers of Mesh's own leave for the upstream. */
const FORWARDED_HEADERS = new Set(['accept', 'content-type']);

export function useCredentialBroker({ upstreamFetch }: CredentialBrokerOptions): MeshPlugin<IdentityContext> {
  return {
    onFetch({ context, info, setFetchFn }) {
      if (!isIdentityContext(context)) return;
      const operation = info?.fieldName ?? 'unknown';
      const { request } = context;
      const brokered: MeshFetch = async (url, init = {}) => {
        const headers: Record<string, string> = {};
        // Mesh passes a plain object or a Headers instance, depending on the handler.
        const given: Iterable<[string, string]> = init.headers instanceof Headers ? init.headers.entries() : Object.entries(init.headers ?? {});
        for (const [name, value] of given) {
          if (FORWARDED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
        }
        const identity = context.identity;
        const call = async (): Promise<Response> => {
          if (identity) {
            const credential = identity.credential();
            headers['access-token'] = credential.accessToken;
            headers.client = credential.client;
            headers.uid = credential.uid;
            headers['token-type'] = 'Bearer';
          }
          const answer = await upstreamFetch(url, { ...init, headers }, { environment: context.upstream.environment, operation });
          noteUpstreamAnswered(request);
          return answer;
        };
        try {
          let response = await call();
          if (!identity) return response;
          // The identity renews its credential and lets the call be made again, or throws.
          while (response.status === 401) {
            await identity.refused(response);
            response = await call();
          }
          await identity.answered(response);
          return response;
        } catch (error) {
          if (error instanceof GatewayError) noteUpstreamFailure(request, error);
          throw error;
        }
      };
      setFetchFn(brokered);
    },
  };
}
