/**
 * `sessions`, `endSession` and `logoutEverywhere`: a signed-in user's own sessions, listed and
 * ended (src/session/user-sessions.ts). Each needs a browser session: an API key has no browser
 * sessions, and an anonymous request was refused before (identity/use-identity.ts). Ending the
 * current session ends this request's too, as `logout` does: its cookie is cleared, and nothing
 * later in the request acts as it (the session fields are alone in their operation anyway).
 */
import { gatewayError } from '../src/errors';
import type { GatewayContext, SessionServices } from '../src/gateway/context';
import { clearSessionCookie } from '../src/session/cookie';
import { sessionOf } from '../src/session/session-identity';
import type { ActiveSession } from '../src/session/sessions';
import { sessionStoreCall } from './session';

function browserSession(context: GatewayContext): { readonly session: ActiveSession; readonly services: SessionServices } {
  const session = sessionOf(context.identity);
  if (!session) throw gatewayError('UNAUTHENTICATED', 'Only a browser session has sessions to list or end: log in.');
  return { session, services: context.services.sessions };
}

/** The request's own session has ended: no cookie, no identity. */
function endedHere(context: GatewayContext, services: SessionServices): void {
  context.identity = undefined;
  services.setCookies.queue(context.request, clearSessionCookie(services.cookieSecure));
}

export const userSessionResolvers = {
  Query: {
    async sessions(_root: unknown, _args: unknown, context: GatewayContext) {
      const { session, services } = browserSession(context);
      const listed = await sessionStoreCall(services, () => services.userSessions.list(session));
      return listed.map((info) => ({
        id: info.id,
        createdAt: new Date(info.createdAt).toISOString(),
        lastSeenAt: new Date(info.lastSeenAt).toISOString(),
        userAgent: info.userAgent ?? null,
        current: info.current,
      }));
    },
  },
  Mutation: {
    async endSession(_root: unknown, args: { id: string }, context: GatewayContext) {
      const { session, services } = browserSession(context);
      const { ended, current } = await sessionStoreCall(services, () => services.userSessions.endOne(session, args.id));
      if (ended && current) endedHere(context, services);
      return ended;
    },

    async logoutEverywhere(_root: unknown, args: { keepCurrent?: boolean | null }, context: GatewayContext) {
      const { session, services } = browserSession(context);
      const { ended, current } = await sessionStoreCall(services, () => services.userSessions.endAll(session, args.keepCurrent === true));
      if (current) endedHere(context, services);
      return ended;
    },
  },
};
