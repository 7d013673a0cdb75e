/**
 * Who a request acts as. Runs before execution (and, later, before any response cache): a cookie
 * request passes the CSRF/origin check, then its session is looked up in the store (one round
 * trip, which also extends the idle timeout). Only `confirmRegistration`, `login`, `logout`
 * (idempotent) and `session` run without a session. A store outage fails closed with SESSION_STORE_UNAVAILABLE.
 */
import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { bearerKey } from '../credentials/service-accounts';
import { overLimit } from '../protection/rate-limiter';
import { findGatewayError, gatewayError, GatewayError } from '../errors';
import { credentialDigest } from '../drop-in/verified-credentials';
import { frontTarget, verifiedCredentialOf } from '../drop-in/use-drop-in-front';
import type { GatewayRuntime } from '../gateway/runtime';
import { clearSessionCookie } from '../session/cookie';
import { checkCsrf, csrfLogFields, csrfMessage } from '../session/csrf';
import { stateOf, type DropInIdentity, type DropInState, type GatewayContext, type ServiceAccountIdentity } from '../gateway/context';
import { beginRequestState } from '../gateway/request-state';
import { rootFields, selectedOperation } from '../gateway/root-fields';

/** Root fields an anonymous caller may use (the contract's list, `logout` which is idempotent, and `__typename`). */
const ANONYMOUS_FIELDS = ['confirmRegistration', 'login', 'logout', 'session', '__typename'];
/** Outside production, anonymous introspection too: GraphiQL needs the schema before login. */
const DEVELOPMENT_ANONYMOUS_FIELDS = ['__schema', '__type'];

export interface SessionAuthOptions {
  readonly runtime: GatewayRuntime;
}

const RATE_WINDOW_MS = 60_000;

export function useSessionAuth({ runtime }: SessionAuthOptions): Plugin<GatewayContext> {
  const { config, sessions, log, metrics, serviceAccounts } = runtime;
  const anonymousFields = new Set([...ANONYMOUS_FIELDS, ...(config.production ? [] : DEVELOPMENT_ANONYMOUS_FIELDS)]);

  /** `Authorization: Bearer <api key>`: the account's shared credential, within its rate limit. */
  const serviceAccountIdentity = async (header: string): Promise<ServiceAccountIdentity | GatewayError> => {
    const key = bearerKey(header);
    const account = key === undefined ? undefined : serviceAccounts.verify(key);
    if (!account) {
      log.apiKeyRejected();
      metrics.apiKeyRejected();
      return gatewayError('UNAUTHENTICATED', 'Unknown API key.');
    }
    const decision = await runtime.rateLimits.hit(`account:${account.name}`, account.requestsPerMinute, RATE_WINDOW_MS);
    if (!decision.allowed) return overLimit(runtime, 'service-account', decision);
    try {
      return { kind: 'service-account', account, lease: await serviceAccounts.credentials.lease(account) };
    } catch (error) {
      return findGatewayError(error) ?? gatewayError('UPSTREAM_UNAVAILABLE', undefined, { cause: error });
    }
  };

  /**
   * The drop-in front: the client's own credential, which the upstream accepted recently (the front
   * passed any other request through to the upstream), so caches may answer for it.
   */
  const dropInIdentity = (context: GatewayContext, dropIn: DropInState): DropInIdentity | undefined => {
    const credential = verifiedCredentialOf(context.request);
    if (!credential) return undefined;
    dropIn.presented = credential;
    return { kind: 'drop-in', credential, verified: true };
  };

  return {
    onRequest({ request, serverContext }) {
      beginRequestState(request, runtime, serverContext);
    },

    onContextBuilding({ context, extendContext }) {
      const request = context.request;
      const state = beginRequestState(request, runtime, context);
      extendContext({ gateway: runtime, state, upstream: frontTarget(runtime, request) });
    },

    async onExecute({ args, extendContext, setResultAndStopExecution }) {
      const context = args.contextValue;
      const document = args.document as DocumentNode;
      const operation = selectedOperation(document, args.operationName as string | null | undefined);
      if (!operation) return;
      const nodes = rootFields(document, operation);
      context.state.executed = { operation, fields: nodes };
      const fields = [...new Set(nodes.map((field) => field.name.value))];
      context.state.operation = fields.join(',');
      const needsIdentity = fields.some((field) => !anonymousFields.has(field));
      const refuse = (error: GatewayError) => setResultAndStopExecution({ errors: [error] });

      const dropIn = context.state.dropIn;
      if (dropIn) {
        // The front's schema has the upstream's fields only (front-schema.ts): nothing gateway-only runs here.
        const identity = dropInIdentity(context, dropIn);
        // Without a verified credential the front passed the request through (useDropInFront).
        if (!identity) return refuse(gatewayError('UNAUTHENTICATED'));
        extendContext({ identity, identityKey: `front:${credentialDigest(identity.credential)}` });
        return;
      }

      const cookieId = context.state.cookieId;
      if (cookieId !== undefined || fields.includes('login')) {
        const verdict = checkCsrf(context.request, { allowedOrigins: config.allowedOrigins, trustProxy: config.trustProxy });
        if (!verdict.ok) {
          log.csrfRefused(csrfLogFields(verdict));
          return refuse(gatewayError('CSRF_CHECK_FAILED', csrfMessage(verdict)));
        }
      }

      if (cookieId !== undefined) {
        let result: Awaited<ReturnType<typeof sessions.resolve>>;
        try {
          result = await sessions.resolve(cookieId);
        } catch (error) {
          runtime.sessionStoreHealth.failed(error);
          return refuse(gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error }));
        }
        // Only an answer of the store itself says it is reachable (not one from the session cache).
        if (result.status !== 'active' || !result.cached) runtime.sessionStoreHealth.ok();
        if (result.status === 'active') {
          context.state.uid = result.session.uid;
          extendContext({
            identity: { kind: 'session', session: result.session },
            identityKey: result.session.key,
            upstream: runtime.upstreams[result.session.environment],
          });
          return;
        }
        log.sessionRejected({ reason: result.status });
        // An id the store no longer holds is almost always a session past its idle or absolute
        // end (the store cannot tell a forged well-formed id apart): counted as expired.
        runtime.metrics.session(result.status === 'malformed' ? 'rejected' : 'expired');
        context.state.setCookies.push(clearSessionCookie(config.cookieSecure));
      } else {
        // Only the Bearer scheme names an API key. Another scheme (a browser's Basic credentials
        // for the /ops page, say) is not meant for this endpoint: the request is anonymous.
        const authorization = context.request.headers.get('authorization');
        if (authorization !== null && /^\s*bearer\b/i.test(authorization)) {
          const identity = await serviceAccountIdentity(authorization);
          if (identity instanceof GatewayError) return refuse(identity);
          context.state.uid = identity.lease.credential.uid;
          extendContext({ identity, identityKey: `account:${identity.account.name}`, upstream: runtime.upstreams[identity.account.environment] });
          return;
        }
      }

      if (needsIdentity) return refuse(gatewayError('UNAUTHENTICATED'));
    },

    onResponse({ request, response }) {
      const state = stateOf(request);
      if (!state) return;
      for (const value of state.setCookies) response.headers.append('set-cookie', value);
      // Answers depend on the caller's session: never stored by shared caches.
      response.headers.set('cache-control', 'no-store');
      const url = new URL(request.url);
      log.requestCompleted({
        method: request.method,
        path: url.pathname,
        status: response.status,
        durationMs: runtime.clock() - state.startedAt,
        ...(state.operation ? { operation: state.operation } : {}),
        ...(state.uid ? { uid: state.uid } : {}),
      });
    },
  };
}
