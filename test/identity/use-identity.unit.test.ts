/**
 * useIdentity, in process, with all three strategies in one list (the drop-in front's credential,
 * the session cookie over a session store, an API key; each product's pipeline has its own, shorter
 * list) behind the executed operation,
 * and useSessionCookies and error mapping as in the gateway: which strategy decides, what an
 * anonymous caller may run, refusals, an unknown or ended cookie, an unreachable session store, and
 * what the context gets.
 */
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { serviceAccountStrategy } from '../../src/credentials/service-account-identity';
import { dropInStrategy, frontTarget } from '../../src/drop-in/front-identity';
import { createVerifiedCredentials } from '../../src/drop-in/verified-credentials';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { useExecutedOperation } from '../../src/request/executed';
import type { IdentityContext } from '../../src/identity/use-identity';
import { useIdentity } from '../../src/identity/use-identity';
import { createMemoryRateLimitStore } from '../../src/protection/rate-limiter';
import { useSessionCookies } from '../../src/session/cookie-jar';
import { browserSessionStrategy } from '../../src/session/session-identity';
import { createRedisSessionStore } from '../../src/session/redis-session-store';
import { createRedisClient } from '../../src/redis';
import { parseRedisTarget } from '../../src/config/redis-url';
import { browserSessions, frontState, serviceAccountsFor, specKeys, specUpstreams } from '../support/identities';
import { ownRedis } from '../support/redis-server';
import { yogaWith } from '../support/yoga';

const FRONT_CREDENTIAL = { accessToken: 'front-token', client: 'front-client', uid: 'api@example.com' };

function pipeline(options: { production?: boolean; verified?: boolean; sessions?: ReturnType<typeof browserSessions> } = {}) {
  const sessions = options.sessions ?? browserSessions();
  const { log, metrics } = sessions;
  const executed: string[] = [];
  const record = (name: string) => (_root: unknown, _args: unknown, context: IdentityContext) => {
    executed.push(name);
    return JSON.stringify({ uid: context.identity?.uid ?? null, key: context.identityKey ?? null, upstream: context.upstream.environment });
  };
  const schema = createSchema({
    typeDefs: /* GraphQL */ `
      type Query { whoami: String! session: String! }
      type Mutation { login: String! logout: String! confirmRegistration: String! addStatements: String! }
    `,
    resolvers: {
      Query: { whoami: record('whoami'), session: record('session') },
      Mutation: { login: record('login'), logout: record('logout'), confirmRegistration: record('confirmRegistration'), addStatements: record('addStatements') },
    },
  });
  const state = sessions.state;
  const server = yogaWith([
    useSessionCookies(state),
    frontState(state.dropIn, options.verified === false ? undefined : FRONT_CREDENTIAL),
    useExecutedOperation(state),
    useIdentity({
      ...state,
      strategies: [
        dropInStrategy({ upstreams: specUpstreams, verified: createVerifiedCredentials(undefined, { keys: specKeys }), keys: specKeys, clock: Date.now, dropIn: state.dropIn }),
        browserSessionStrategy(sessions.dependencies),
        serviceAccountStrategy({ serviceAccounts: serviceAccountsFor([], { log, metrics }), rateLimits: createMemoryRateLimitStore(), upstreams: specUpstreams, log, metrics }),
      ],
      production: options.production ?? true,
      defaultUpstream: (request) => frontTarget(specUpstreams, request),
    }),
    useErrorMapping({ ...state, log, metrics }),
  ], { schema });
  return { server, sessions, executed };
}

const context = (data: Record<string, unknown> | null | undefined, field: string) => JSON.parse(String(data?.[field])) as { uid: string | null; key: string | null; upstream: string };
const UNKNOWN_KEY = 'Bearer sgw_no-such-key-0123456789';
/** A well-formed session id the store does not hold. */
const UNKNOWN_COOKIE = 'sgw_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

describe('useIdentity', () => {
  it('acts as the session the cookie names: identity, identityKey and the session\'s upstream in the context', async () => {
    const { server, sessions } = pipeline();
    const { cookie, session } = await sessions.signIn('ada@example.com', 'production');
    const answer = await server.graphql('{ whoami }', { headers: { cookie } });
    expect(context(answer.body.data, 'whoami')).toEqual({ uid: 'ada@example.com', key: session.key, upstream: 'production' });
  });

  it('asks the drop-in front\'s credential first: a front request acts as it, whatever cookie or API key it carries', async () => {
    const { server, sessions } = pipeline();
    const { cookie } = await sessions.signIn('ada@example.com', 'production');
    const answer = await server.graphql('{ whoami }', { headers: { cookie, authorization: UNKNOWN_KEY, 'x-spec-drop-in': '1', 'x-upstream-environment': 'sandbox' } });
    const seen = context(answer.body.data, 'whoami');
    expect(seen).toMatchObject({ uid: FRONT_CREDENTIAL.uid, upstream: 'sandbox' });
    expect(seen.key).toMatch(/^front:/);
  });

  it('refuses a front request without a verified credential, never falling back to its cookie', async () => {
    const { server, sessions, executed } = pipeline({ verified: false });
    const { cookie } = await sessions.signIn('ada@example.com');
    const answer = await server.graphql('{ whoami }', { headers: { cookie, 'x-spec-drop-in': '1' } });
    expect([answer.status, answer.codes]).toEqual([401, ['UNAUTHENTICATED']]);
    expect(executed).toEqual([]);
  });

  it('asks the cookie before the API key', async () => {
    const { server, sessions } = pipeline();
    const { cookie } = await sessions.signIn('ada@example.com');
    const answer = await server.graphql('{ whoami }', { headers: { cookie, authorization: UNKNOWN_KEY } });
    expect(context(answer.body.data, 'whoami').uid).toBe('ada@example.com');
  });

  it('stops at a strategy\'s refusal with its code and message: the operation does not run', async () => {
    const { server, executed, sessions } = pipeline();
    const answer = await server.graphql('{ session }', { headers: { authorization: UNKNOWN_KEY } });
    expect([answer.status, answer.codes, answer.body.errors?.[0]?.message]).toEqual([401, ['UNAUTHENTICATED'], 'Unknown API key.']);
    expect(executed).toEqual([]);
    expect(sessions.events('service-account.key-rejected')).toHaveLength(1);
  });

  it('lets an anonymous caller run the contract\'s anonymous fields only, introspection only outside production', async () => {
    const { server, executed } = pipeline();
    const allowed = ['{ session }', '{ __typename }', 'mutation { login }', 'mutation { logout }', 'mutation { confirmRegistration }', 'mutation { login __typename }'];
    for (const query of allowed) expect((await server.graphql(query)).codes, query).toEqual([]);
    for (const query of ['{ whoami }', '{ session whoami }', 'mutation { login addStatements }', '{ __schema { queryType { name } } }', '{ __type(name: "Query") { name } }']) {
      expect((await server.graphql(query)).codes, query).toEqual(['UNAUTHENTICATED']);
    }
    expect(executed).toEqual(['session', 'login', 'logout', 'confirmRegistration', 'login']);
    const development = pipeline({ production: false }).server;
    expect((await development.graphql('{ __schema { queryType { name } } }')).body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    expect((await development.graphql('{ whoami }')).codes).toEqual(['UNAUTHENTICATED']);
  });

  it('sends an anonymous request\'s upstream calls to the front\'s target (sandbox unless it names production)', async () => {
    const { server } = pipeline();
    expect(context((await server.graphql('{ session }')).body.data, 'session')).toEqual({ uid: null, key: null, upstream: 'sandbox' });
    const named = await server.graphql('{ session }', { headers: { 'x-upstream-environment': 'production' } });
    expect(context(named.body.data, 'session').upstream).toBe('production');
  });

  it('clears an unknown cookie (Max-Age=0) and leaves the request anonymous, the API key unasked', async () => {
    const { server, sessions } = pipeline();
    const anonymous = await server.graphql('{ session }', { headers: { cookie: UNKNOWN_COOKIE } });
    expect(context(anonymous.body.data, 'session').uid).toBeNull();
    expect(anonymous.headers.getSetCookie()).toEqual([expect.stringMatching(/^sgw_session=; Max-Age=0;/)]);
    const refused = await server.graphql('{ whoami }', { headers: { cookie: UNKNOWN_COOKIE, authorization: UNKNOWN_KEY } });
    expect([refused.codes, refused.body.errors?.[0]?.message]).toEqual([['UNAUTHENTICATED'], 'Not signed in, or the session has ended. Sign in again.']);
    expect(refused.headers.getSetCookie()).toEqual([expect.stringMatching(/Max-Age=0/)]);
    expect(sessions.events('session.rejected').map((line) => line.reason)).toEqual(['missing', 'missing']);
  });

  it('clears the cookie of an ended session and of a malformed one', async () => {
    const { server, sessions } = pipeline();
    const { cookie, session } = await sessions.signIn('ada@example.com');
    await sessions.sessions.end(session);
    for (const sent of [cookie, 'sgw_session=not-an-id']) {
      const answer = await server.graphql('{ whoami }', { headers: { cookie: sent } });
      expect(answer.codes).toEqual(['UNAUTHENTICATED']);
      expect(answer.headers.getSetCookie()).toEqual([expect.stringMatching(/^sgw_session=; Max-Age=0;/)]);
    }
    expect(sessions.events('session.rejected').map((line) => line.reason)).toEqual(['missing', 'malformed']);
  });

  it('fails closed with SESSION_STORE_UNAVAILABLE (503) while the session store cannot be reached, and logs the outage', async () => {
    // A Redis port nobody listens on (never started).
    const absent = await ownRedis();
    const redis = createRedisClient({ target: parseRedisTarget(absent.url) });
    try {
      const sessions = browserSessions({ store: createRedisSessionStore(redis) });
      const { server, executed } = pipeline({ sessions });
      const answer = await server.graphql('{ session }', { headers: { cookie: UNKNOWN_COOKIE } });
      expect([answer.status, answer.codes]).toEqual([503, ['SESSION_STORE_UNAVAILABLE']]);
      expect(executed).toEqual([]);
      expect(answer.headers.getSetCookie()).toEqual([]);
      expect(sessions.events('store.unavailable')).toEqual([expect.objectContaining({ store: 'sessions' })]);
    } finally {
      redis.disconnect();
    }
  });
});
