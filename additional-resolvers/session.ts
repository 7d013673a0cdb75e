/** `login`, `logout` and `session`: the gateway's own operations, beside the upstream's (the list of sessions: user-sessions.ts). */
import type { Environment } from '../src/environment';
import type { UpstreamCredential } from '../src/upstream/credential';
import { gatewayError } from '../src/errors';
import type { GatewayContext, SessionServices } from '../src/gateway/context';
import { environmentFromEnum, environmentToEnum } from '../src/environment';
import { actingAs } from '../src/identity/use-identity';
import { clearSessionCookie, setSessionCookie } from '../src/session/cookie';
import { BrowserSessionIdentity, sessionOf } from '../src/session/session-identity';
import type { ActiveSession } from '../src/session/sessions';

/** Longer inputs are refused before they reach the upstream (devise caps passwords at 128). */
const MAX_EMAIL_LENGTH = 320;
const MAX_PASSWORD_LENGTH = 1_024;

function sessionView(session: Pick<ActiveSession, 'uid' | 'environment' | 'absoluteExpiresAt' | 'idleExpiresAt'>, now = Date.now()) {
  return {
    uid: session.uid,
    environment: environmentToEnum(session.environment),
    expiresAt: new Date(session.absoluteExpiresAt).toISOString(),
    idleExpiresAt: new Date(session.idleExpiresAt).toISOString(),
    // Relative, so that a page counting down need not trust its own clock. Rounded down: a page
    // that asks again at zero finds the session still there rather than already gone.
    idleExpiresInSeconds: Math.max(0, Math.floor((session.idleExpiresAt - now) / 1000)),
  };
}

/** Runs a session-store call; an unreachable store fails closed with SESSION_STORE_UNAVAILABLE. */
export async function sessionStoreCall<T>(services: SessionServices, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    services.health.failed(error);
    throw gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error });
  }
}

/** Signs a credential out upstream; best effort (the gateway session is already gone). */
function signOutUpstream(services: SessionServices, environment: Environment, credential: UpstreamCredential): Promise<'ok' | 'failed'> {
  return services.auth.signOut(services.upstreams[environment], credential);
}

export const sessionResolvers = {
  Query: {
    // `touch` was read before execution (identity/activity.ts): it decides whether the store moved
    // the idle timeout on when the session was looked up.
    session(_root: unknown, _args: { touch?: boolean | null }, context: GatewayContext) {
      const session = sessionOf(context.identity);
      return session ? sessionView(session) : null;
    },
  },
  Mutation: {
    async login(_root: unknown, args: { email: string; password: string; environment?: string | null }, context: GatewayContext) {
      const services = context.services.sessions;
      const environment = environmentFromEnum(args.environment);
      const email = args.email.trim();
      if (!email || email.length > MAX_EMAIL_LENGTH || args.password.length > MAX_PASSWORD_LENGTH) {
        services.log.loginRefused({ environment, reason: 'input-too-long' });
        throw gatewayError('INVALID_CREDENTIALS');
      }

      // Sessions fail closed: do not count, nor sign in upstream, when the session could not be
      // kept. First, because on a Cluster a failed check refreshes the client's slot map
      // (src/redis.ts): after a failover the limits' commands below then reach the new masters
      // instead of failing on the lost one's slots.
      await sessionStoreCall(services, () => services.sessions.store.ping());

      // The login limits (login-limits.ts), before anything else happens: while limited, even the
      // right password never reaches the upstream.
      const attempt = { address: services.addresses.of(context.request), email, environment };
      const refused = await services.loginLimits.admit(attempt);
      if (refused) throw refused;

      // A login that arrives with a session ends that session (a new id at every login).
      const previous = sessionOf(context.identity);
      if (previous) {
        context.identity = undefined;
        await sessionStoreCall(services, () => services.sessions.end(previous));
        void signOutUpstream(services, previous.environment, previous.credential);
      }

      const target = services.upstreams[environment];
      // No answer throws the upstream client's error; the call counts as this request's.
      const signedIn = await services.auth.signIn(target, email, args.password, context.request);
      if (!signedIn.ok && signedIn.code === 'UNAUTHENTICATED') {
        services.log.loginRefused({ environment, reason: 'invalid-credentials' });
        throw gatewayError('INVALID_CREDENTIALS');
      }
      if (!signedIn.ok) throw gatewayError(signedIn.code);
      const { credential } = signedIn;

      // The failures are cleared beside the session's creation: best effort, it never throws.
      const [, created] = await Promise.all([
        services.loginLimits.succeeded(attempt),
        sessionStoreCall(services, () => services.sessions.create(environment, credential, { userAgent: context.request.headers.get('user-agent') })).catch((error: unknown) => {
          // The credential could not be kept: do not leave it signed in upstream.
          void signOutUpstream(services, environment, credential);
          throw error;
        }),
      ]);
      // SESSION_MAX_PER_USER: the user's least recently used sessions beyond it end now.
      await services.userSessions.evict(created.beyondCap);
      services.setCookies.queue(context.request, setSessionCookie(created.id, { secure: services.cookieSecure }));
      // The rest of the document (if any) runs as the new session, in its environment.
      Object.assign(context, actingAs(new BrowserSessionIdentity(services, context.request, created.session)));
      services.log.loginSucceeded({ environment, uid: credential.uid });
      services.metrics.session('login');
      return sessionView(created.session);
    },

    async logout(_root: unknown, _args: unknown, context: GatewayContext) {
      const services = context.services.sessions;
      const session = sessionOf(context.identity);
      // Idempotent: without a session (never signed in, or already ended) there is nothing to end,
      // and an expired cookie was already cleared by the session strategy.
      if (!session) return true;
      await sessionStoreCall(services, () => services.sessions.end(session));
      context.identity = undefined;
      services.setCookies.queue(context.request, clearSessionCookie(services.cookieSecure));
      const upstreamSignOut = await signOutUpstream(services, session.environment, session.credential);
      services.log.logout({ environment: session.environment, upstreamSignOut });
      services.metrics.session('logout');
      return true;
    },
  },
};
