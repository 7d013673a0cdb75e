/**
 * Credential brokering on every upstream call Mesh makes. The call gets the three devise headers
 * of the caller's identity (browser session, service account, or the drop-in client's own) and
 * nothing of the client's request (no cookie, no X-CSRF, no API key). A rotated `access-token` in
 * the answer is kept. An upstream 401 ends a browser session; for a service account it triggers
 * one re-sign-in and one retry; on the drop-in front the client gets the upstream's answer.
 */
import type { MeshFetch, MeshPlugin } from '@graphql-mesh/types';
import { credentialFromHeaders } from '../credentials/types';
import { findGatewayError, GatewayError, gatewayError } from '../errors';
import { credentialHeadersOf } from '../drop-in/use-drop-in-front';
import type { GatewayRuntime } from '../gateway/runtime';
import { clearSessionCookie } from '../session/cookie';
import { credentialOf, isGatewayContext, type GatewayContext, type RequestIdentity, type SessionIdentity } from '../gateway/context';

export interface CredentialBrokerOptions {
  readonly runtime: GatewayRuntime;
}

/** Only these request headers of Mesh's own leave for the upstream. */
const FORWARDED_HEADERS = new Set(['accept', 'content-type']);

/** An upstream 401 on a browser session's call: the session is over (unless a newer credential won). */
async function refuseSession(context: GatewayContext, identity: SessionIdentity, response: Response): Promise<never> {
  const { sessions, config, log } = context.gateway;
  await response.body?.cancel().catch(() => undefined);
  // The upstream no longer accepts this credential: the session is over, unless a racing
  // answer stored a newer credential meanwhile (then only this request fails).
  const ended = await sessions.endIfCurrent(identity.session).catch((error: unknown) => {
    context.gateway.sessionStoreHealth.failed(error);
    return true;
  });
  if (ended) {
    context.state.setCookies.push(clearSessionCookie(config.cookieSecure));
    log.sessionRejected({ reason: 'upstream-refused' });
    context.gateway.metrics.session('rejected');
  }
  throw (context.state.upstreamFailure = gatewayError('UNAUTHENTICATED'));
}

/** An upstream 401 on the drop-in front: the client gets the upstream's own answer (useDropInFront). */
async function refuseDropIn(context: GatewayContext, response: Response): Promise<never> {
  const body = await response.text().catch(() => '');
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  const type = response.headers.get('content-type');
  if (type) headers['content-type'] = type;
  if (context.state.dropIn) context.state.dropIn.refusal = { status: 401, headers, body };
  throw (context.state.upstreamFailure = gatewayError('UNAUTHENTICATED'));
}

/**
 * Keeps what an answer says about the credential: a rotated token (compare-and-set for shared
 * credentials, so an older token never overwrites a newer one when answers race), and on the
 * drop-in front the headers to hand back and the fact that the upstream accepted the credential.
 */
async function keepRotated(context: GatewayContext, identity: RequestIdentity, response: Response): Promise<void> {
  const { gateway } = context;
  const rotated = credentialFromHeaders((name) => response.headers.get(name));
  const current = credentialOf(identity);
  const changed = rotated !== undefined && rotated.accessToken !== current.accessToken;
  switch (identity.kind) {
    case 'session': {
      if (!changed) return;
      const before = identity.session;
      const kept = await gateway.sessions.rotate(before, rotated).catch((error: unknown) => {
        gateway.sessionStoreHealth.failed(error);
        return undefined;
      });
      gateway.log.credentialRotated({ environment: before.environment, kept: kept !== undefined });
      // Later upstream calls of this request use the newer token.
      if (kept) identity.session = { ...before, credential: rotated, sealed: kept };
      return;
    }
    case 'service-account': {
      if (!changed) return;
      const kept = await gateway.serviceAccounts.credentials.rotated(identity.account, identity.lease, rotated);
      gateway.log.credentialRotated({ environment: identity.account.environment, kept: kept !== undefined });
      if (kept) identity.lease = kept;
      return;
    }
    case 'drop-in': {
      const dropIn = context.state.dropIn;
      const answered = credentialHeadersOf(response.headers);
      // A blank (batch-window) answer never replaces a real token another call of this request got.
      if (dropIn && answered && (answered['access-token']?.trim() || !dropIn.credentialHeaders)) dropIn.credentialHeaders = answered;
      // Only an answer with devise's headers for this uid and client says the upstream
      // authenticated the credential (some operations, such as confirmRegistration, need none).
      const authenticated = answered?.uid === current.uid && answered.client === current.client;
      if (!response.ok || !authenticated) return;
      if (changed) identity.credential = rotated;
      const accepted = changed ? rotated : { ...current, ...(rotated?.expiry ? { expiry: rotated.expiry } : {}) };
      await gateway.front.verified.remember(context.upstream.cacheNamespace, accepted, gateway.clock());
      return;
    }
  }
}

export function useCredentialBroker({ runtime }: CredentialBrokerOptions): MeshPlugin<GatewayContext> {
  const { serviceAccounts } = runtime;
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
        const call = async (): Promise<Response> => {
          if (identity) {
            const credential = credentialOf(identity);
            headers['access-token'] = credential.accessToken;
            headers.client = credential.client;
            headers.uid = credential.uid;
            headers['token-type'] = 'Bearer';
          }
          try {
            const answer = await runtime.upstreamFetch(url, { ...init, headers }, { environment: context.upstream.environment, operation });
            context.state.upstreamAnswered = true;
            return answer;
          } catch (error) {
            if (error instanceof GatewayError) context.state.upstreamFailure = error;
            throw error;
          }
        };
        let response = await call();
        if (!identity) return response;

        if (response.status === 401) {
          switch (identity.kind) {
            case 'session':
              await refuseSession(context, identity, response);
              break;
            case 'drop-in':
              await refuseDropIn(context, response);
              break;
            case 'service-account':
              // One re-sign-in and one retry per request, never a loop.
              await response.body?.cancel().catch(() => undefined);
              if (!identity.renewed) {
                identity.renewed = true;
                try {
                  identity.lease = await serviceAccounts.credentials.renew(identity.account, identity.lease);
                } catch (error) {
                  throw (context.state.upstreamFailure = findGatewayError(error) ?? gatewayError('UNAUTHENTICATED'));
                }
                response = await call();
              }
              if (response.status === 401) {
                await response.body?.cancel().catch(() => undefined);
                throw (context.state.upstreamFailure = gatewayError('UNAUTHENTICATED', 'The upstream refused the service account\'s credential.'));
              }
          }
        }
        await keepRotated(context, identity, response);
        return response;
      };
      setFetchFn(brokered);
    },
  };
}
