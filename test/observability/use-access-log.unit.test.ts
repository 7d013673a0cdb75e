/**
 * useAccessLog and useSessionCookies, in process, where the gateway has them: after the routes
 * answered before any GraphQL work (here useHealth's /healthcheck), before useRoutes, the executed
 * operation, useIdentity with the browser-session strategy over a memory session store, and error
 * mapping. One request.completed line per request they see, with its operation and uid and never
 * a credential; the Set-Cookie values a request's handling queued; no-store on every answer.
 */
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { useExecutedOperation } from '../../src/request/executed';
import { useRoutes } from '../../src/http/use-routes';
import { useIdentity, type IdentityContext } from '../../src/identity/use-identity';
import { useAccessLog } from '../../src/observability/use-access-log';
import { createDependencyWatch } from '../../src/ops/dependency-watch';
import { useHealth } from '../../src/ops/use-health';
import { setSessionCookie } from '../../src/session/cookie';
import { useSessionCookies } from '../../src/session/cookie-jar';
import { browserSessionStrategy } from '../../src/session/session-identity';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import { createMemorySessionStore } from '../../src/session/memory-session-store';
import { createUpstreamProbe } from '../../src/upstream/probe';
import { browserSessions, specUpstreams } from '../support/identities';
import { yogaWith } from '../support/yoga';

async function pipeline() {
  const sessions = browserSessions();
  const { log, metrics } = sessions;
  let now = 1_000_000;
  const schema = createSchema({
    typeDefs: 'type Query { hello: String! statements: Int! } type Mutation { login: String! }',
    resolvers: {
      Query: {
        // The upstream takes 25 ms on the test's clock.
        hello: () => ((now += 25), 'world'),
        statements: () => 3,
      },
      Mutation: {
        login: (_root: unknown, _args: unknown, { request }: IdentityContext) => {
          sessions.state.setCookies.queue(request, 'sgw_session=; Max-Age=0; Path=/');
          sessions.state.setCookies.queue(request, setSessionCookie('new-session-id', { secure: false }));
          return 'ok';
        },
      },
    },
  });
  const state = sessions.state;
  const server = yogaWith([
    useHealth({
      dependencies: createDependencyWatch({ sessionStore: createMemorySessionStore(), cacheStore: createMemoryCacheStore(), upstreams: createUpstreamProbe({ upstreams: specUpstreams }) }),
      lifecycle: { phase: 'serving' },
    }),
    useAccessLog({ ...state, log, clock: () => now }),
    useSessionCookies(state),
    useRoutes(),
    useExecutedOperation(state),
    useIdentity({ ...state, strategies: [browserSessionStrategy(sessions.dependencies)], production: true, defaultUpstream: () => specUpstreams.sandbox }),
    useErrorMapping({ ...state, log, metrics }),
  ], { schema });
  const signedIn = await sessions.signIn('ada@example.com', 'sandbox', { accessToken: 'access-token-never-logged', client: 'client-never-logged' });
  return { server, cookie: signedIn.cookie, cookieId: signedIn.id, lines: sessions.lines, completed: () => sessions.events('request.completed') };
}

describe('useAccessLog', () => {
  it('writes one request.completed line: method, path, status, duration, operation and the identity\'s uid', async () => {
    const { server, cookie, completed } = await pipeline();
    expect((await server.graphql('{ hello }', { headers: { cookie } })).status).toBe(200);
    expect(completed()).toEqual([expect.objectContaining({ method: 'POST', path: '/graphql', status: 200, durationMs: 25, operation: 'hello', uid: 'ada@example.com' })]);
  });

  it('names each root field once, and no uid for an anonymous request', async () => {
    const { server, completed } = await pipeline();
    expect((await server.graphql('{ a: statements b: statements hello }')).codes).toEqual(['UNAUTHENTICATED']);
    expect(completed()).toEqual([expect.objectContaining({ status: 401, operation: 'statements,hello' })]);
    expect(completed()[0]).not.toHaveProperty('uid');
  });

  it('logs requests that never executed, without an operation: unparsable documents, unknown paths', async () => {
    const { server, completed } = await pipeline();
    await server.graphql('{ hello');
    await server.fetch('/elsewhere');
    expect(completed().map((line) => [line.path, line.status, line.operation])).toEqual([['/graphql', 400, undefined], ['/elsewhere', 404, undefined]]);
  });

  it('logs no credential: neither the upstream token and client nor the session id', async () => {
    const { server, cookie, cookieId, lines } = await pipeline();
    await server.graphql('{ hello }', { headers: { cookie } });
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(lines)).not.toMatch(new RegExp(`access-token-never-logged|client-never-logged|${cookieId}`));
  });

  it('logs nothing for a request a plugin before it answered (/healthcheck)', async () => {
    const { server, completed } = await pipeline();
    expect((await server.fetch('/healthcheck')).status).toBe(200);
    expect(completed()).toEqual([]);
  });
});

describe('useSessionCookies', () => {
  it('appends every Set-Cookie value the request\'s handling queued, in order', async () => {
    const { server } = await pipeline();
    const answer = await server.graphql('mutation { login }');
    expect(answer.headers.getSetCookie()).toEqual(['sgw_session=; Max-Age=0; Path=/', 'sgw_session=new-session-id; Path=/; HttpOnly; SameSite=Strict']);
  });

  it('marks every answer after it no-store (GraphQL data, errors, 404), and sets no cookie unless asked', async () => {
    const { server, cookie } = await pipeline();
    const answers = [
      await server.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: '{"query":"{ hello }"}' }),
      await server.fetch('/graphql?query=%7Bhello%7D'),
      await server.fetch('/elsewhere'),
    ];
    expect(answers.map((answer) => [answer.status, answer.headers.get('cache-control'), answer.headers.getSetCookie()])).toEqual([
      [200, 'no-store', []], [401, 'no-store', []], [404, 'no-store', []],
    ]);
  });

  it('sets no cookie on an answer a plugin before it gave', async () => {
    const { server } = await pipeline();
    const answer = await server.fetch('/healthcheck', { headers: { cookie: 'sgw_session=x' } });
    expect(answer.headers.getSetCookie()).toEqual([]);
  });
});
