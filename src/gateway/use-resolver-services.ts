/**
 * What the gateway's own resolvers use (login, logout, session, statementDefinitions), put in the
 * context by both products' pipelines (the front serves statementDefinitions too), and the browser
 * sessions' dependencies they share with the session identity: assembled once from the runtime,
 * for both plugin lists.
 */
import type { Plugin } from 'graphql-yoga';
import type { BrowserSessionDependencies } from '../session/session-identity';
import type { GatewayContext, ResolverServices } from './context';
import type { GatewayRuntime } from './runtime';

/** What a browser session (its identity strategy, and the resolvers that make and end one) needs. */
export function sessionDependenciesOf(runtime: GatewayRuntime): BrowserSessionDependencies {
  const { sessions, log, metrics, upstreams, config } = runtime;
  const { setCookies, sessionCookies } = runtime.requestState;
  return { sessions, health: runtime.sessionStoreHealth, log, metrics, cookieSecure: config.cookieSecure, upstreams, setCookies, sessionCookies };
}

/** The resolvers' services over `sessions` (sessionDependenciesOf, shared with the strategy). */
export function resolverServicesOf(runtime: GatewayRuntime, sessions: BrowserSessionDependencies): ResolverServices {
  const { loginLimits, upstreamAuth: auth, caches, userSessions } = runtime;
  const { addresses, outcomes } = runtime.requestState;
  return { sessions: { ...sessions, loginLimits, auth, addresses, userSessions }, definitions: caches.definitions, outcomes };
}

export function useResolverServices(services: ResolverServices): Plugin<GatewayContext> {
  return {
    onContextBuilding({ extendContext }) {
      extendContext({ services });
    },
  };
}
