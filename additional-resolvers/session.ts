/** `login`, `logout` and `session`: the gateway's own operations, beside the upstream's. */
import type { Environment } from '../src/environment';
import { credentialFromHeaders, type UpstreamCredential } from '../src/credentials/types';
import { findGatewayError, gatewayError } from '../src/errors';
import type { GatewayContext, SessionServices } from '../src/gateway/context';
import { environmentFromEnum, environmentToEnum } from '../src/environment';
import { actingAs } from '../src/identity/use-identity';
import { clearSessionCookie, setSessionCookie } from '../src/session/cookie';
import { BrowserSessionIdentity, sessionOf } from '../src/session/identity';
import type { ActiveSession } from '../src/session/sessions';

/** Longer inputs are refused before they reach the upstream (devise caps passwords at 128). */
const MAX_EMAIL_LENGTH = 320;
const MAX_PASSWORD_LENGTH = 1_024;

interface SignInAnswer {
  readonly __typename?: string;
  readonly data?: { readonly uid?: string };
  readonly _response?: { readonly status?: number; readonly headers?: Record<string, string | string[] | undefined> };
}

/** The hidden REST sign-in, reachable only through Mesh's in-context SDK. */
interface SignInSdk {
  readonly SignIn: {
    readonly Mutation: {
      signIn(options: {
        root: unknown;
        args: { input: { email: string; password: string } };
        context: unknown;
        selectionSet: string;
      }): Promise<SignInAnswer | Error | null>;
    };
  };
}

type ResolverContext = GatewayContext & SignInSdk;

const SIGN_IN_SELECTION = /* GraphQL */ `{
  __typename
  ... on SignInSuccess { data { uid } _response { status headers } }
  ... on SignInFailure { success }
}`;

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

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Runs a session-store call; an unreachable store fails closed with SESSION_STORE_UNAVAILABLE. */
async function sessionStoreCall<T>(services: SessionServices, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    services.health.failed(error);
    throw gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error });
  }
}

/** Signs a credential out upstream; best effort (the gateway session is already gone). */
async function signOutUpstream(services: SessionServices, environment: Environment, credential: UpstreamCredential): Promise<'ok' | 'failed'> {
  try {
    const response = await services.upstreamFetch(
      `${services.upstreams[environment].baseUrl}/v2/auth/sign_out`,
      { method: 'DELETE', headers: { 'access-token': credential.accessToken, client: credential.client, uid: credential.uid } },
      { environment, operation: 'signOut' },
    );
    await response.body?.cancel().catch(() => undefined);
    return response.ok || response.status === 404 ? 'ok' : 'failed';
  } catch {
    return 'failed';
  }
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
    async login(_root: unknown, args: { email: string; password: string; environment?: string | null }, context: ResolverContext) {
      const services = context.services.sessions;
      const environment = environmentFromEnum(args.environment);
      const email = args.email.trim();
      if (!email || email.length > MAX_EMAIL_LENGTH || args.password.length > MAX_PASSWORD_LENGTH) {
        services.log.loginRefused({ environment, reason: 'input-too-long' });
        throw gatewayError('INVALID_CREDENTIALS');
      }

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

      // Sessions fail closed: do not sign in upstream when the session could not be kept.
      await sessionStoreCall(services, () => services.sessions.store.ping());

      const target = services.upstreams[environment];
      const answer = await context.SignIn.Mutation.signIn({
        root: {},
        args: { input: { email, password: args.password } },
        context: { ...context, upstream: target, identity: undefined },
        selectionSet: SIGN_IN_SELECTION,
      });
      // The SDK hands failures back as values; never rethrow them as they are (their path names
      // the hidden sign-in operation).
      if (answer instanceof Error) throw findGatewayError(answer) ?? context.services.outcomes.of(context.request).failure ?? gatewayError('UPSTREAM_ERROR');
      if (!answer || answer.__typename !== 'SignInSuccess') {
        services.log.loginRefused({ environment, reason: 'invalid-credentials' });
        throw gatewayError('INVALID_CREDENTIALS');
      }
      await services.loginLimits.succeeded(attempt);
      const headers = answer._response?.headers ?? {};
      const credential: UpstreamCredential | undefined = credentialFromHeaders((name) => header(headers, name));
      if (!credential) throw gatewayError('UPSTREAM_ERROR');

      const created = await sessionStoreCall(services, () => services.sessions.create(environment, credential)).catch((error: unknown) => {
        // The credential could not be kept: do not leave it signed in upstream.
        void signOutUpstream(services, environment, credential);
        throw error;
      });
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
