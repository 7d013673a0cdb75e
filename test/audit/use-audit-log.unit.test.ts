/**
 * useAuditLog, in process, its lines captured from the real logger, behind the gateway's own
 * pipeline pieces in their order (client address, executed operation, CSRF check, identity with
 * the browser-session strategy over a memory session store, session rate limit, error mapping):
 * who did what (mutations, logins, refusals, refused answers outside GraphQL), from where, how it
 * ended, and nothing secret. In-process specs are `<plugin>.unit.test.ts` beside the area's
 * other tests (test/support/yoga.ts); audit.test.ts runs the trail through the gateway.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createSchema, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../../src/credentials/cipher';
import { createDerivedKeys } from '../../src/derived-keys';
import { gatewayError } from '../../src/errors';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { useExecutedOperation } from '../../src/request/executed';
import { useRoutes } from '../../src/http/use-routes';
import { useIdentity } from '../../src/identity/use-identity';
import { createMetrics } from '../../src/observability/metrics';
import { createOpsAccess } from '../../src/ops/access';
import { createStoreHealth } from '../../src/observability/store-health';
import { useAuditLog } from '../../src/audit/use-audit-log';
import { useMetricsEndpoint } from '../../src/ops/use-metrics';
import { useClientAddress } from '../../src/protection/client-address';
import { createMemoryRateLimitStore } from '../../src/protection/rate-limiter';
import { useRateLimits } from '../../src/protection/use-rate-limits';
import { sessionCookieName } from '../../src/session/cookie';
import { browserSessionStrategy } from '../../src/session/session-identity';
import { createMemorySessionStore } from '../../src/session/memory-session-store';
import { Sessions } from '../../src/session/sessions';
import { useCsrf } from '../../src/session/use-csrf';
import { upstreamTarget } from '../../src/upstream/target';
import { capturedLog } from '../support/captured-log';
import { fromAddress, yogaWith } from '../support/yoga';
import { requestState } from '../support/request-state';

const ACCESS_TOKEN = 'upstream-access-token-never-logged';
const PASSWORD = 'a-password-never-logged';
const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);
const upstreams = { sandbox: upstreamTarget('sandbox', 'http://sandbox.test'), production: upstreamTarget('production', 'http://production.test') };

const schema = createSchema({
  typeDefs: /* GraphQL */ `
    type Query { hello: String! }
    type Mutation {
      addStatements(statements: [String!]!): Int!
      login(email: String!, password: String!, environment: String): String!
    }
  `,
  resolvers: {
    Query: { hello: () => 'world' },
    Mutation: {
      addStatements: (_root: unknown, { statements }: { statements: string[] }) => statements.length,
      login: () => Promise.reject(gatewayError('INVALID_CREDENTIALS')),
    },
  },
});

async function audited(options: { trustProxy?: number; sessionLimit?: number; before?: Plugin[] } = {}) {
  const captured = capturedLog();
  const { log } = captured;
  const metrics = createMetrics({ processMetrics: false });
  const sessions = new Sessions({ store: createMemorySessionStore(), cipher: createCredentialCipher(randomBytes(32)), idleMs: 60_000, absoluteMs: 3_600_000, keys: createDerivedKeys(randomBytes(32)) });
  const state = requestState();
  const dependencies = { ...state, sessions, health: createStoreHealth('sessions', log), log, metrics, cookieSecure: false, upstreams };
  const server = yogaWith([
    useClientAddress({ ...state, trustProxy: options.trustProxy ?? 0 }),
    ...(options.before ?? []),
    useExecutedOperation(state),
    useCsrf({ ...state, allowedOrigins: [], trustProxy: 0, cookieSecure: false, log, exempt: () => false }),
    useIdentity({ ...state, strategies: [browserSessionStrategy(dependencies)], production: true, defaultUpstream: () => upstreams.sandbox }),
    useRateLimits({ ...state, limit: { max: options.sessionLimit ?? 100, windowMs: 60_000 }, counters: createMemoryRateLimitStore(), log, metrics }),
    useErrorMapping({ ...state, log, metrics }),
    useAuditLog({ ...state, log, cookieSecure: false }),
  ], { schema });
  const { id, session } = await sessions.create('production', { accessToken: ACCESS_TOKEN, client: 'client-id', uid: 'ada@example.com' });
  return { server, session, cookie: `${sessionCookieName(false)}=${id}`, cookieId: id, audit: () => captured.events('audit'), lines: captured.lines };
}

const ADD = 'mutation($s: [String!]!) { addStatements(statements: $s) }';

describe('useAuditLog', () => {
  it('writes a session\'s mutation: who (uid, environment, session hash), from where, what (fields, statements named), how it ended', async () => {
    const { server, session, cookie, audit } = await audited();
    const answer = await server.graphql(ADD, { variables: { s: ['a', 'b', 'c'] }, headers: { cookie, 'x-csrf': '1' }, serverContext: fromAddress('203.0.113.5') });
    expect(answer.body.data).toEqual({ addStatements: 3 });
    expect(audit()).toEqual([
      expect.objectContaining({
        action: 'mutation', outcome: 'ok', status: 200, path: '/graphql', actor: 'session', uid: 'ada@example.com', environment: 'production',
        session: shortHash(session.key), clientAddress: '203.0.113.5', fields: ['addStatements'], statements: 3,
      }),
    ]);
  });

  it('writes nothing for a query that was answered', async () => {
    const { server, cookie, lines } = await audited();
    expect((await server.graphql('{ hello }', { headers: { cookie, 'x-csrf': '1' } })).body.data).toEqual({ hello: 'world' });
    expect(lines.filter((line) => line.event === 'audit')).toEqual([]);
  });

  it('writes a failed login with its code and the e-mail tried, never the password', async () => {
    const { server, audit, lines } = await audited();
    const answer = await server.graphql(`mutation { login(email: "ada@example.com", password: "${PASSWORD}", environment: "PRODUCTION") }`, { headers: { 'x-csrf': '1' } });
    expect(answer.codes).toEqual(['INVALID_CREDENTIALS']);
    expect(audit()).toEqual([expect.objectContaining({ action: 'login', outcome: 'INVALID_CREDENTIALS', actor: 'anonymous', uid: 'ada@example.com', environment: 'production', status: 401 })]);
    await server.graphql(`mutation { login(email: "${PASSWORD}", password: "x") }`, { headers: { 'x-csrf': '1' } });
    expect(audit()[1]).not.toHaveProperty('uid');
    expect(JSON.stringify(lines)).not.toContain(PASSWORD);
  });

  it('writes a cookie request refused before its session was looked up (no X-CSRF) as that session, without the session id', async () => {
    const { server, session, cookie, cookieId, audit, lines } = await audited();
    const answer = await server.graphql('{ hello }', { headers: { cookie } });
    expect(answer.codes).toEqual(['CSRF_CHECK_FAILED']);
    expect(audit()).toEqual([expect.objectContaining({ action: 'refused', outcome: 'CSRF_CHECK_FAILED', actor: 'anonymous', session: shortHash(session.key), status: 403, fields: ['hello'] })]);
    expect(JSON.stringify(lines)).not.toContain(cookieId);
  });

  it('writes a query over the session\'s rate limit as RATE_LIMITED, as the session', async () => {
    const { server, session, cookie, audit } = await audited({ sessionLimit: 1 });
    const headers = { cookie, 'x-csrf': '1' };
    expect((await server.graphql('{ hello }', { headers })).status).toBe(200);
    expect((await server.graphql('{ hello }', { headers })).status).toBe(429);
    expect(audit()).toEqual([expect.objectContaining({ action: 'refused', outcome: 'RATE_LIMITED', actor: 'session', session: shortHash(session.key), status: 429 })]);
  });

  it('writes refused answers given outside GraphQL (401 at /metrics) with the code they stand for', async () => {
    const metrics = useMetricsEndpoint({ metrics: createMetrics({ processMetrics: false }), access: createOpsAccess({ token: 'ops-token-0123456789', trustProxy: 0 }) });
    const { server, audit } = await audited({ before: [metrics, useRoutes()] });
    expect((await server.fetch('/metrics', {}, fromAddress('198.51.100.4'))).status).toBe(401);
    expect((await server.fetch('/elsewhere', {}, fromAddress('198.51.100.4'))).status).toBe(404);
    expect(audit()).toEqual([expect.objectContaining({ action: 'refused', outcome: 'UNAUTHENTICATED', actor: 'anonymous', status: 401, path: '/metrics', clientAddress: '198.51.100.4' })]);
  });

  it('takes the client address from X-Forwarded-For only as far as TRUST_PROXY hops', async () => {
    for (const [trustProxy, address] of [[0, '10.0.0.1'], [1, '192.0.2.2'], [2, '192.0.2.1']] as const) {
      const { server, cookie, audit } = await audited({ trustProxy });
      await server.graphql(ADD, { variables: { s: [] }, headers: { cookie, 'x-csrf': '1', 'x-forwarded-for': '192.0.2.1, 192.0.2.2' }, serverContext: fromAddress('10.0.0.1') });
      expect(audit()[0]?.clientAddress, `TRUST_PROXY=${trustProxy}`).toBe(address);
    }
  });

  it('logs no upstream credential and no session id of the identity', async () => {
    const { server, cookie, cookieId, lines } = await audited();
    await server.graphql('mutation { addStatements(statements: ["a"]) }', { headers: { cookie, 'x-csrf': '1' } });
    expect(lines.filter((line) => line.event === 'audit')).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toMatch(new RegExp(`${ACCESS_TOKEN}|client-id|${cookieId}`));
  });
});
