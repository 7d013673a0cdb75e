/** `login`, `logout` and `session`: the gateway's own operations, beside the upstream's. */
import { credentialFromHeaders, type UpstreamCredential } from '../src/credentials/types';
import { findGatewayError, gatewayError } from '../src/errors';
import { environmentFromEnum, environmentToEnum, type GatewayContext } from '../src/plugins/context';
import { clearSessionCookie, setSessionCookie } from '../src/session/cookie';
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

function sessionView(session: Pick<ActiveSession, 'uid' | 'environment' | 'absoluteExpiresAt'>) {
  return { uid: session.uid, environment: environmentToEnum(session.environment), expiresAt: new Date(session.absoluteExpiresAt).toISOString() };
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Signs a credential out upstream; best effort (the gateway session is already gone). */
async function signOutUpstream(context: GatewayContext, session: ActiveSession): Promise<'ok' | 'failed'> {
  const { credential, environment } = session;
  try {
    const response = await context.gateway.upstreamFetch(
      `${context.gateway.upstreams[environment].baseUrl}/v2/auth/sign_out`,
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
    session: (_root: unknown, _args: unknown, context: GatewayContext) =>
      context.identity ? sessionView(context.identity.session) : null,
  },
  Mutation: {
    async login(_root: unknown, args: { email: string; password: string; environment?: string | null }, context: ResolverContext) {
      const { gateway, state } = context;
      const environment = environmentFromEnum(args.environment);
      const email = args.email.trim();
      if (!email || email.length > MAX_EMAIL_LENGTH || args.password.length > MAX_PASSWORD_LENGTH) {
        gateway.log.loginRefused({ environment, reason: 'input-too-long' });
        throw gatewayError('INVALID_CREDENTIALS');
      }

      // A login that arrives with a session ends that session (a new id at every login).
      const previous = context.identity?.session;
      if (previous) {
        context.identity = undefined;
        try {
          await gateway.sessions.end(previous);
        } catch (error) {
          gateway.sessionStoreHealth.failed(error);
          throw gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error });
        }
        void signOutUpstream(context, previous);
      }

      // Sessions fail closed: do not sign in upstream when the session could not be kept.
      try {
        await gateway.sessions.store.ping();
      } catch (error) {
        gateway.sessionStoreHealth.failed(error);
        throw gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error });
      }

      const target = gateway.upstreams[environment];
      const answer = await context.SignIn.Mutation.signIn({
        root: {},
        args: { input: { email, password: args.password } },
        context: { ...context, upstream: target, identity: undefined },
        selectionSet: SIGN_IN_SELECTION,
      });
      // The SDK hands failures back as values; never rethrow them as they are (their path names
      // the hidden sign-in operation).
      if (answer instanceof Error) throw findGatewayError(answer) ?? state.upstreamFailure ?? gatewayError('UPSTREAM_ERROR');
      if (!answer || answer.__typename !== 'SignInSuccess') {
        gateway.log.loginRefused({ environment, reason: 'invalid-credentials' });
        throw gatewayError('INVALID_CREDENTIALS');
      }
      const headers = answer._response?.headers ?? {};
      const credential: UpstreamCredential | undefined = credentialFromHeaders((name) => header(headers, name));
      if (!credential) throw gatewayError('UPSTREAM_ERROR');

      let created: Awaited<ReturnType<typeof gateway.sessions.create>>;
      try {
        created = await gateway.sessions.create(environment, credential);
      } catch (error) {
        gateway.sessionStoreHealth.failed(error);
        void signOutUpstream(context, { key: '', uid: credential.uid, environment, credential, sealed: '', absoluteExpiresAt: 0 });
        throw gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error });
      }
      state.setCookies.push(
        setSessionCookie(created.id, { secure: gateway.config.cookieSecure, maxAgeSeconds: gateway.config.sessionAbsoluteMs / 1000 }),
      );
      context.identity = { kind: 'session', session: created.session };
      context.identityKey = created.session.key;
      gateway.log.loginSucceeded({ environment, uid: credential.uid });
      return sessionView(created.session);
    },

    async logout(_root: unknown, _args: unknown, context: GatewayContext) {
      const { gateway, state } = context;
      const session = context.identity?.session;
      if (!session) throw gatewayError('UNAUTHENTICATED');
      try {
        await gateway.sessions.end(session);
      } catch (error) {
        gateway.sessionStoreHealth.failed(error);
        throw gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error });
      }
      context.identity = undefined;
      state.setCookies.push(clearSessionCookie(gateway.config.cookieSecure));
      const upstreamSignOut = await signOutUpstream(context, session);
      gateway.log.logout({ environment: session.environment, upstreamSignOut });
      return true;
    },
  },
};
