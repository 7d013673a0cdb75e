/**
 * Tracing against a real OTLP/HTTP receiver in this process (test/support/otlp-receiver.ts): the
 * spans of a cookie request, a service account's request and its shared sign-in, the drop-in front
 * and a login, each continuing the caller's trace and handing it to the upstream; no personal data
 * in any span; the trace ids in the logs; nothing when no endpoint is set. Other paths (the hot
 * path's guard, Mesh's execution, the definitions refresh, sign-out): tracing-paths.test.ts; a
 * dead collector: dead-collector.test.ts. The gateways run in this process: each owns its tracer
 * provider (nothing registered globally).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startGateway } from '../../src/gateway/server';
import { control, DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, RELAXED_LIMITS, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { callWithKey, serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';
import { callerContext, expectContinued, frontGreeting, spanIdOf, spansOf as spansIn, tracingEnv, upstreamRequestsOf } from '../support/tracing';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const account = testServiceAccount('tracing');
/** Used by one test only, so that its first request is the one that signs it in. */
const signingIn = testServiceAccount('tracing-sign-in');
let receiver: OtlpReceiver;
let gateway: TestGateway;

const upstreamEnv = () => ({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY });
const spansOf = (traceId: string) => spansIn(receiver, traceId);

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  gateway = await startTestGateway({ ...upstreamEnv(), ...tracingEnv(receiver.url), ...serviceAccountsEnv([account, signingIn]) });
});
afterAll(async () => {
  await gateway.stop();
  await receiver.close();
});
beforeEach(async () => {
  for (const { email, password } of [account, signingIn]) await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password });
});

describe('tracing', () => {
  it('traces a cookie request: SERVER, operation and CLIENT spans in the caller\'s trace, the upstream told', async () => {
    const browser = new Browser(gateway.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const caller = callerContext();
    const answer = await browser.graphql('query Greeting { secretGreeting { response } }', undefined, { headers: { traceparent: caller.traceparent } });
    expect(answer.codes).toEqual([]);
    const spans = await spansOf(caller.traceId);
    const server = spans.find((span) => span.kind === SPAN_KIND.server);
    expect(server?.name).toBe('POST /graphql');
    expect(server?.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/graphql', 'http.route': '/graphql', 'http.response.status_code': 200 });
    const operation = spans.find((span) => span.attributes['graphql.operation.type'] !== undefined);
    expect(operation).toMatchObject({ name: 'query Greeting', parentSpanId: server?.spanId, attributes: { 'graphql.operation.type': 'query', 'graphql.operation.name': 'Greeting' } });
    // On the fast path, the CLIENT span is named after the operation's first root field.
    const clients = spans.filter((span) => span.kind === SPAN_KIND.client);
    expect(clients.map((span) => [span.name, span.parentSpanId])).toEqual([['POST secretGreeting', operation?.spanId]]);
    expect(Object.keys(clients[0]?.attributes ?? {}).sort()).toEqual(['http.request.method', 'http.response.status_code', 'server.address', 'server.port', 'statement_gateway.upstream.environment', 'statement_gateway.upstream.operation']);
    expect(server?.resource['service.name']).toBe('statement-gateway');
    await expectContinued(spans, caller, sandbox.url);
  });

  it('traces a login: the sign-in upstream is a CLIENT span of the login mutation, in the caller\'s trace', async () => {
    const caller = callerContext();
    const browser = new Browser(gateway.url);
    const answer = await browser.graphql('mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { uid } }', { email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password }, { headers: { traceparent: caller.traceparent } });
    expect(answer.codes).toEqual([]);
    const spans = await spansOf(caller.traceId);
    expect(spans.find((span) => span.name === 'mutation Login')).toBeDefined();
    await expectContinued(spans, caller, sandbox.url);
  });

  it('traces a service account\'s first request: CLIENT spans for its shared sign-in and for the GraphQL call, both upstream calls told', async () => {
    const caller = callerContext();
    const answer = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${signingIn.key}`, traceparent: caller.traceparent },
      body: JSON.stringify({ query: '{ secretGreeting { response } }' }),
    });
    expect(answer.status).toBe(200);
    const spans = await spansOf(caller.traceId);
    const ids = new Set(spans.map((span) => span.spanId));
    const clients = spans.filter((span) => span.kind === SPAN_KIND.client);
    expect(clients.map((span) => span.name).sort()).toEqual(['POST secretGreeting', 'POST signIn']);
    const signIn = clients.find((span) => span.name === 'POST signIn');
    const call = clients.find((span) => span.name === 'POST secretGreeting');
    expect(signIn?.attributes).toMatchObject({ 'statement_gateway.upstream.operation': 'signIn', 'statement_gateway.upstream.environment': 'sandbox', 'http.request.method': 'POST', 'http.response.status_code': 200 });
    expect(call?.attributes).toMatchObject({ 'statement_gateway.upstream.operation': 'secretGreeting', 'statement_gateway.upstream.environment': 'sandbox' });
    for (const client of clients) expect(ids.has(client.parentSpanId ?? ''), client.name).toBe(true);
    // The upstream saw each call with its own span as the parent: the sign-in on its REST path.
    const sent = await upstreamRequestsOf(sandbox.url, caller.traceId);
    expect(sent.map((entry) => [entry.path, spanIdOf(entry.traceparent)]).sort()).toEqual([['/v2/auth/sign_in', signIn?.spanId], ['/v2/graphql', call?.spanId]].sort());
    await expectContinued(spans, caller, sandbox.url);
  });

  it('traces the drop-in front (/v2/graphql): the caller\'s trace reaches the upstream', async () => {
    const caller = callerContext();
    const response = await frontGreeting(gateway.url, gateway.url, caller);
    expect(response.status).toBe(200);
    const spans = await spansOf(caller.traceId);
    expect(spans.find((span) => span.kind === SPAN_KIND.server)?.attributes['http.route']).toBe('/v2/graphql');
    // A credential the upstream has just accepted runs through the gateway (its fast path here);
    // one it has not is passed through as it came (`POST graphql`).
    expect(spans.filter((span) => span.kind === SPAN_KIND.client).map((span) => span.name)).toEqual(['POST secretGreeting']);
    await expectContinued(spans, caller, sandbox.url);
  });

  it('a failed upstream call sets the error status and the contract code on the CLIENT, operation and SERVER spans', async () => {
    const browser = new Browser(gateway.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 500 });
    const caller = callerContext();
    try {
      expect((await browser.graphql('{ secretGreeting { response } }', undefined, { headers: { traceparent: caller.traceparent } })).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    } finally {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null });
    }
    const spans = await spansOf(caller.traceId);
    expect(spans.length).toBe(3);
    for (const span of spans) {
      expect(span.status.code, span.name).toBe(2);
      expect(span.attributes['error.type'], span.name).toBe('UPSTREAM_UNAVAILABLE');
    }
  });

  it('every log line of a traced request carries its trace_id and span_id, audit lines included', async () => {
    const caller = callerContext();
    await new Browser(gateway.url).graphql('mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { uid } }', { email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password }, { headers: { traceparent: caller.traceparent } });
    const spans = await spansOf(caller.traceId);
    const lines = gateway.output().split('\n').filter((line) => line.includes(caller.traceId)).map((line) => JSON.parse(line) as { event?: string; span_id?: string; trace_id?: string; requestId?: string });
    expect(lines.map((line) => line.event)).toEqual(expect.arrayContaining(['audit', 'request.completed']));
    const ids = new Set(spans.map((span) => span.spanId));
    for (const line of lines) {
      expect(line.trace_id).toBe(caller.traceId);
      expect(ids.has(line.span_id ?? '')).toBe(true);
    }
    const requestIds = new Set(lines.map((line) => line.requestId));
    const all = gateway.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { requestId?: string; trace_id?: string });
    expect(all.filter((line) => requestIds.has(line.requestId)).every((line) => line.trace_id === caller.traceId)).toBe(true);
  });
});

describe('tracing without personal data', () => {
  it('no exported span holds an e-mail, password, token, client id, cookie, TIN or variable', async () => {
    const email = `tracing-${randomBytes(4).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(8).toString('hex')}`;
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password });
    const tin = '987654321';
    const uploaderId = `w2-${randomBytes(4).toString('hex')}`;
    const browser = new Browser(gateway.url);
    expect((await browser.login(email, password)).codes).toEqual([]);
    const added = await browser.graphql('mutation AddW2($s: [Fw2Input!]!) { addFw2Statements(statements: $s) { errors statements { statement { otxId } } } }', {
      s: [{ uploaderId, recipientFirstName: 'Ottilie', recipientLastName: 'Quarshie', recipientTin: tin, senderName: 'Ackerly Mills', senderTin: '112223333' }],
    });
    expect(added.codes).toEqual([]);
    expect((await browser.graphql('query Read($u: [String!]) { getFw2Statements(uploaderIds: $u) { errors statements { nodes { otxId recipientTin } } } }', { u: [uploaderId] })).codes).toEqual([]);
    const signedIn = await fetch(`${gateway.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
    const token = signedIn.headers.get('access-token') ?? '';
    const client = signedIn.headers.get('client') ?? '';
    expect(token.length * client.length).toBeGreaterThan(0);
    expect((await callWithKey(gateway.url, account.key, '{ secretGreeting { response } }')).status).toBe(200);
    const cookie = browser.cookie?.split('=')[1] ?? '';
    expect((await browser.graphql('mutation { logout }')).codes).toEqual([]);
    await receiver.waitFor((spans) => spans.some((span) => span.attributes['graphql.operation.name'] === 'Read'));
    await new Promise((resolve) => setTimeout(resolve, 200));

    const exported = receiver.bodies.join('\n');
    for (const secret of [email, password, tin, '112223333', uploaderId, 'Ottilie', 'Quarshie', token, client, cookie, account.key, account.email, account.password, DEMO_ACCOUNT.email]) {
      expect(exported, secret).not.toContain(secret);
    }
    expect(exported).toContain('"AddW2"');
  });
});

describe('tracing off', () => {
  it('without an endpoint: no tracer, no trace ids in the logs, no traceparent upstream', async () => {
    let output = '';
    const { Writable } = await import('node:stream');
    const destination = new Writable({ write(chunk: Buffer, _encoding, done) { output += chunk.toString('utf8'); done(); } });
    const untraced = await startGateway(loadConfig({ PORT: '0', NODE_ENV: 'test', ...RELAXED_LIMITS, ...upstreamEnv() }), { logDestination: destination });
    try {
      expect(untraced.runtime.tracing).toBeUndefined();
      await control(sandbox.url, 'DELETE', '/__emulator/requests');
      const caller = callerContext();
      expect((await new Browser(untraced.url).login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password, 'SANDBOX')).codes).toEqual([]);
      await fetch(`${untraced.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', traceparent: caller.traceparent }, body: '{"query":"{ __typename }"}' });
      const log = await control<{ traceparent: string | null }[]>(sandbox.url, 'GET', '/__emulator/requests');
      expect(log.body.length).toBeGreaterThan(0);
      expect(log.body.every((entry) => entry.traceparent === null)).toBe(true);
      expect(output).toContain('request.completed');
      expect(output).not.toContain('trace_id');
    } finally {
      await untraced.close();
    }
  });
});
