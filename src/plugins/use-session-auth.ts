/**
 * Who a request acts as. Runs before execution (and, later, before any response cache): a cookie
 * request passes the CSRF/origin check, then its session is looked up in the store (one round
 * trip, which also extends the idle timeout). Only `confirmRegistration`, `login` and `session`
 * run without a session. A store outage fails closed with SESSION_STORE_UNAVAILABLE.
 */
import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError, type GatewayError } from '../errors';
import type { GatewayRuntime } from '../runtime';
import { clearSessionCookie, readSessionCookie } from '../session/cookie';
import { checkCsrf } from '../session/csrf';
import { attachState, stateOf, type GatewayContext, type RequestState } from './context';
import { rootFields, selectedOperation } from './root-fields';

/** Root fields an anonymous caller may use (the contract's list, and `__typename`). */
const ANONYMOUS_FIELDS = ['confirmRegistration', 'login', 'session', '__typename'];
/** Outside production, anonymous introspection too: GraphiQL needs the schema before login. */
const DEVELOPMENT_ANONYMOUS_FIELDS = ['__schema', '__type'];

export interface SessionAuthOptions {
  readonly runtime: GatewayRuntime;
}

function newState(request: Request, runtime: GatewayRuntime): RequestState {
  return {
    startedAt: runtime.clock(),
    cookieId: readSessionCookie(request.headers.get('cookie'), runtime.config.cookieSecure),
    setCookies: [],
    upstreamAnswered: false,
  };
}

export function useSessionAuth({ runtime }: SessionAuthOptions): Plugin<GatewayContext> {
  const { config, sessions, log } = runtime;
  const anonymousFields = new Set([...ANONYMOUS_FIELDS, ...(config.production ? [] : DEVELOPMENT_ANONYMOUS_FIELDS)]);
  const anonymousTarget = (request: Request) =>
    request.headers.get('x-upstream-environment')?.trim().toLowerCase() === 'production' ? runtime.upstreams.production : runtime.upstreams.sandbox;

  return {
    onRequest({ request }) {
      attachState(request, newState(request, runtime));
    },

    onContextBuilding({ context, extendContext }) {
      const request = context.request;
      let state = stateOf(request);
      if (!state) {
        state = newState(request, runtime);
        attachState(request, state);
      }
      extendContext({ gateway: runtime, state, upstream: anonymousTarget(request) });
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

      const cookieId = context.state.cookieId;
      if (cookieId !== undefined || fields.includes('login')) {
        const verdict = checkCsrf(context.request, { allowedOrigins: config.allowedOrigins, trustProxy: config.trustProxy });
        if (!verdict.ok) {
          log.csrfRefused({ reason: verdict.reason });
          return refuse(gatewayError('CSRF_CHECK_FAILED'));
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
        runtime.sessionStoreHealth.ok();
        if (result.status === 'active') {
          extendContext({
            identity: { kind: 'session', session: result.session },
            identityKey: result.session.key,
            upstream: runtime.upstreams[result.session.environment],
          });
          return;
        }
        log.sessionRejected({ reason: result.status });
        context.state.setCookies.push(clearSessionCookie(config.cookieSecure));
      } else if (needsIdentity && context.request.headers.get('authorization')) {
        // Service-account API keys are not configured on this gateway: an unknown key.
        return refuse(gatewayError('UNAUTHENTICATED', 'Unknown API key.'));
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
      });
    },
  };
}
