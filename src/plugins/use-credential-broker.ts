/**
 * Credential brokering on every upstream call Mesh makes. The call gets the three devise headers
 * of the caller's session and nothing of the browser's request (no cookie, no X-CSRF). A rotated
 * `access-token` in the answer is kept (compare-and-set, so an older token never overwrites a
 * newer one when answers race). An upstream 401 on a session call ends the session.
 */
import type { MeshFetch, MeshPlugin } from '@graphql-mesh/types';
import { credentialFromHeaders } from '../credentials/types';
import { GatewayError, gatewayError } from '../errors';
import type { GatewayRuntime } from '../runtime';
import { clearSessionCookie } from '../session/cookie';
import { isGatewayContext, type GatewayContext } from './context';

export interface CredentialBrokerOptions {
  readonly runtime: GatewayRuntime;
}

/** Only these request headers of Mesh's own leave for the upstream. */
const FORWARDED_HEADERS = new Set(['accept', 'content-type']);

export function useCredentialBroker({ runtime }: CredentialBrokerOptions): MeshPlugin<GatewayContext> {
  const { sessions, log, config } = runtime;
  return {
    onFetch({ context, info, setFetchFn }) {
      if (!isGatewayContext(context)) return;
      const operation = info?.fieldName ?? 'unknown';
      const brokered: MeshFetch = async (url, init = {}) => {
        const headers: Record<string, string> = {};
        // Mesh passes a plain object or a Headers instance, depending on the handler.
        const given: Iterable<[string, string]> = init.headers instanceof Headers ? init.headers.entries() : Object.entries(init.headers ?? {});
        for (const [name, value] of given) {
          if (FORWARDED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
        }
        const identity = context.identity;
        if (identity) {
          const { credential } = identity.session;
          headers['access-token'] = credential.accessToken;
          headers.client = credential.client;
          headers.uid = credential.uid;
          headers['token-type'] = 'Bearer';
        }
        let response: Response;
        try {
          response = await runtime.upstreamFetch(url, { ...init, headers }, { environment: context.upstream.environment, operation });
        } catch (error) {
          if (error instanceof GatewayError) context.state.upstreamFailure = error;
          throw error;
        }
        context.state.upstreamAnswered = true;
        if (!identity) return response;

        if (response.status === 401) {
          await response.body?.cancel().catch(() => undefined);
          // The upstream no longer accepts this credential: the session is over, unless a racing
          // answer stored a newer credential meanwhile (then only this request fails).
          const ended = await sessions.endIfCurrent(identity.session).catch((error: unknown) => {
            runtime.sessionStoreHealth.failed(error);
            return true;
          });
          if (ended) {
            context.state.setCookies.push(clearSessionCookie(config.cookieSecure));
            log.sessionRejected({ reason: 'upstream-refused' });
          }
          throw (context.state.upstreamFailure = gatewayError('UNAUTHENTICATED'));
        }

        const rotated = credentialFromHeaders((name) => response.headers.get(name));
        if (rotated && rotated.accessToken !== identity.session.credential.accessToken) {
          const before = identity.session;
          const kept = await sessions.rotate(before, rotated).catch((error: unknown) => {
            runtime.sessionStoreHealth.failed(error);
            return undefined;
          });
          log.credentialRotated({ environment: before.environment, kept: kept !== undefined });
          // Later upstream calls of this request use the newer token.
          if (kept) identity.session = { ...before, credential: rotated, sealed: kept };
        }
        return response;
      };
      setFetchFn(brokered);
    },
  };
}
