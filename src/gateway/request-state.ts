/**
 * The per-request state (context.ts), begun by the first plugin that needs it: the drop-in front
 * for the answers it ends itself (so that they are logged like every other), useSessionAuth for
 * every other request.
 */
import { clientAddress } from '../protection/client-address';
import { isFrontGraphqlPath } from '../drop-in/front-paths';
import type { GatewayRuntime } from './runtime';
import { readSessionCookie } from '../session/cookie';
import { attachState, stateOf, type RequestState } from './context';

function newState(request: Request, runtime: GatewayRuntime, serverContext: unknown): RequestState {
  // The drop-in front acts with the client's own credential: a cookie there means nothing.
  const dropIn = isFrontGraphqlPath(new URL(request.url).pathname);
  return {
    startedAt: runtime.clock(),
    clientAddress: clientAddress(request, serverContext, runtime.config.trustProxy),
    cookieId: dropIn ? undefined : readSessionCookie(request.headers.get('cookie'), runtime.config.cookieSecure),
    setCookies: [],
    upstreamAnswered: false,
    ...(dropIn ? { dropIn: {} } : {}),
  };
}

/** The request's state, begun now if no plugin began it yet. */
export function beginRequestState(request: Request, runtime: GatewayRuntime, serverContext: unknown): RequestState {
  const existing = stateOf(request);
  if (existing) return existing;
  const state = newState(request, runtime, serverContext);
  attachState(request, state);
  return state;
}
