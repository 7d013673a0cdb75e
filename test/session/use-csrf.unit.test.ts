/**
 * useCsrf, in process, behind the executed operation and before error mapping as in the gateway,
 * exempting the requests its `exempt` rule names (the gateway's: the requests it builds itself): which
 * requests need the CSRF/origin check (those with the session cookie, and every `login`), the
 * refusal the client gets, and the log line. csrf.unit.test.ts covers the check itself.
 */
import { createSchema } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { useExecutedOperation } from '../../src/request/executed';
import { createMetrics } from '../../src/observability/metrics';
import { useCsrf } from '../../src/session/use-csrf';
import { capturedLog } from '../support/captured-log';
import { yogaWith } from '../support/yoga';
import { requestState } from '../support/request-state';

const ALLOWED = 'https://app.example.com';
const COOKIE = 'sgw_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

function pipeline(options: { cookieSecure?: boolean } = {}) {
  const captured = capturedLog();
  const { log } = captured;
  const ran: string[] = [];
  const schema = createSchema({
    typeDefs: 'type Query { hello: String! } type Mutation { login: String! }',
    resolvers: { Query: { hello: () => (ran.push('hello'), 'world') }, Mutation: { login: () => (ran.push('login'), 'ok') } },
  });
  const state = requestState();
  const server = yogaWith([
    useExecutedOperation(state),
    useCsrf({ ...state, allowedOrigins: [ALLOWED], trustProxy: 0, cookieSecure: options.cookieSecure ?? false, log, exempt: (request) => request.headers.has('x-spec-exempt') }),
    useErrorMapping({ ...state, log, metrics: createMetrics({ processMetrics: false }) }),
  ], { schema });
  return { server, ran, refusals: () => captured.events('request.csrf-refused') };
}

describe('useCsrf', () => {
  it('refuses a cookie request without X-CSRF with CSRF_CHECK_FAILED (403) before it runs, and logs why', async () => {
    const { server, ran, refusals } = pipeline();
    const answer = await server.graphql('{ hello }', { headers: { cookie: COOKIE } });
    expect([answer.status, answer.codes]).toEqual([403, ['CSRF_CHECK_FAILED']]);
    expect(answer.body.errors?.[0]?.message).toMatch(/^Cross-site request refused: no X-CSRF header\./);
    expect(ran).toEqual([]);
    expect(refusals()).toEqual([expect.objectContaining({ reason: 'missing-header' })]);
  });

  it('runs a cookie request with X-CSRF from no origin, its own origin or an allowed one', async () => {
    const { server, ran, refusals } = pipeline();
    for (const origin of [undefined, 'http://gateway.test', ALLOWED]) {
      const answer = await server.graphql('{ hello }', { headers: { cookie: COOKIE, 'x-csrf': '1', ...(origin ? { origin } : {}) } });
      expect(answer.codes, origin).toEqual([]);
    }
    expect(ran).toEqual(['hello', 'hello', 'hello']);
    expect(refusals()).toEqual([]);
  });

  it('refuses a cookie request from a foreign origin, naming the origin in the message and the log', async () => {
    const { server, ran, refusals } = pipeline();
    const answer = await server.graphql('{ hello }', { headers: { cookie: COOKIE, 'x-csrf': '1', origin: 'https://evil.example' } });
    expect(answer.codes).toEqual(['CSRF_CHECK_FAILED']);
    expect(answer.body.errors?.[0]?.message).toContain('the origin "https://evil.example" is not allowed');
    expect(ran).toEqual([]);
    expect(refusals()).toEqual([expect.objectContaining({ reason: 'foreign-origin', origin: 'https://evil.example' })]);
  });

  it('checks every login, with or without a cookie (login CSRF), whatever its alias', async () => {
    const { server, ran } = pipeline();
    for (const query of ['mutation { login }', 'mutation { signIn: login }']) {
      expect((await server.graphql(query)).codes, query).toEqual(['CSRF_CHECK_FAILED']);
      expect((await server.graphql(query, { headers: { 'x-csrf': '1', origin: 'https://evil.example' } })).codes, query).toEqual(['CSRF_CHECK_FAILED']);
    }
    expect((await server.graphql('mutation { login }', { headers: { 'x-csrf': '1' } })).codes).toEqual([]);
    expect(ran).toEqual(['login']);
  });

  it('leaves requests without the session cookie alone: another cookie, or the other cookie name', async () => {
    const { server, ran } = pipeline();
    expect((await server.graphql('{ hello }')).codes).toEqual([]);
    expect((await server.graphql('{ hello }', { headers: { cookie: 'theme=dark' } })).codes).toEqual([]);
    expect((await server.graphql('{ hello }', { headers: { cookie: `__Host-${COOKIE}` } })).codes).toEqual([]);
    expect(ran).toEqual(['hello', 'hello', 'hello']);
    const secure = pipeline({ cookieSecure: true }).server;
    expect((await secure.graphql('{ hello }', { headers: { cookie: COOKIE } })).codes).toEqual([]);
    expect((await secure.graphql('{ hello }', { headers: { cookie: `__Host-${COOKIE}` } })).codes).toEqual(['CSRF_CHECK_FAILED']);
  });

  it('exempts the requests its rule names: a cookie or a login there is not checked', async () => {
    const { server, ran, refusals } = pipeline();
    const exempt = { 'x-spec-exempt': '1', origin: 'https://evil.example' };
    expect((await server.graphql('{ hello }', { headers: { ...exempt, cookie: COOKIE } })).codes).toEqual([]);
    expect((await server.graphql('mutation { login }', { headers: exempt })).codes).toEqual([]);
    expect(ran).toEqual(['hello', 'login']);
    expect(refusals()).toEqual([]);
  });
});
