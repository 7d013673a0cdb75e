/**
 * Tracing against a real OTLP/HTTP receiver in this process (test/support/otlp-receiver.ts): the
 * spans of a cookie request, a service account's request, the drop-in front and a login, each
 * continuing the caller's trace and handing it to the upstream; no personal data in any span; the
 * trace ids in the logs; nothing when no endpoint is set; a dead collector does not slow requests.
 * The gateways run in this process: each owns its tracer provider (nothing registered globally).
 */
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startGateway } from '../../src/gateway/server';
import { control, DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, RELAXED_LIMITS, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { callWithKey, serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const account = testServiceAccount('tracing');
let receiver: OtlpReceiver;
let gateway: TestGateway;

const upstreamEnv = () => ({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY });
const tracingEnv = (endpoint: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '20' });

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  gateway = await startTestGateway({ ...upstreamEnv(), ...tracingEnv(receiver.url), ...serviceAccountsEnv([account]) });
});
afterAll(async () => {
  await gateway.stop();
  await receiver.close();
});
beforeEach(async () => {
  await control(sandbox.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password });
});

/** A caller's W3C context: a fresh trace id and span id, sampled. */
function callerContext() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** Waits for the trace's SERVER span (ended last) and returns the trace's spans. */
async function spansOf(traceId: string): Promise<ReceivedSpan[]> {
  const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
  await receiver.waitFor((spans) => inTrace(spans).some((span) => span.kind === SPAN_KIND.server));
  return inTrace(receiver.spans);
}

/** What the upstream logged with this trace id. */
async function upstreamTraceparents(url: string, traceId: string): Promise<string[]> {
  const log = await control<{ traceparent: string | null }[]>(url, 'GET', '/__emulator/requests');
  return log.body.map((entry) => entry.traceparent ?? '').filter((value) => value.includes(traceId));
}

/** The trace's SERVER span continues the caller's; every CLIENT span descends from it and reached the upstream. */
async function expectContinued(spans: ReceivedSpan[], caller: { traceId: string; spanId: string }, upstreamUrl: string) {
  const server = spans.find((span) => span.kind === SPAN_KIND.server);
  expect(server?.parentSpanId).toBe(caller.spanId);
  const ids = new Set(spans.map((span) => span.spanId));
  const clients = spans.filter((span) => span.kind === SPAN_KIND.client);
  expect(clients.length).toBeGreaterThan(0);
  for (const client of clients) {
    expect(ids.has(client.parentSpanId ?? '')).toBe(true);
    expect(client.attributes['server.address']).toBe('127.0.0.1');
    expect(client.attributes['http.request.method']).toBe('POST');
    expect(client.attributes['http.response.status_code']).toBe(200);
  }
  const sent = await upstreamTraceparents(upstreamUrl, caller.traceId);
  expect(sent.map((value) => value.split('-')[2]).sort()).toEqual(clients.map((span) => span.spanId).sort());
}

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
    expect(spans.filter((span) => span.kind === SPAN_KIND.client).map((span) => span.parentSpanId)).toEqual([operation?.spanId]);
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

  it('traces a service account\'s request, its shared sign-in included', async () => {
    const caller = callerContext();
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${account.key}`, traceparent: caller.traceparent },
      body: JSON.stringify({ query: '{ secretGreeting { response } }' }),
    });
    expect(response.status).toBe(200);
    const spans = await spansOf(caller.traceId);
    expect(spans.filter((span) => span.kind === SPAN_KIND.client).length).toBeGreaterThanOrEqual(1);
    await expectContinued(spans, caller, sandbox.url);
  });

  it('traces the drop-in front (/v2/graphql): the caller\'s trace reaches the upstream', async () => {
    const signedIn = await fetch(`${gateway.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password }) });
    expect(signedIn.status).toBe(200);
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: signedIn.headers.get('uid') ?? '' };
    const caller = callerContext();
    const response = await fetch(`${gateway.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential, traceparent: caller.traceparent }, body: JSON.stringify({ query: '{ secretGreeting { response } }' }) });
    expect(response.status).toBe(200);
    const spans = await spansOf(caller.traceId);
    expect(spans.find((span) => span.kind === SPAN_KIND.server)?.attributes['http.route']).toBe('/v2/graphql');
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

describe('a dead collector', () => {
  let silent: Server;
  beforeAll(async () => {
    // Accepts connections and never answers: the worst a collector can do.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  async function timeRequests(url: string, count: number): Promise<number> {
    const browser = new Browser(url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const started = performance.now();
    for (let i = 0; i < count; i++) expect((await browser.graphql('{ secretGreeting { response } }')).codes).toEqual([]);
    return (performance.now() - started) / count;
  }

  it('does not slow requests, whether it hangs or refuses', async () => {
    const address = silent.address() as { port: number };
    const closedPort = await new Promise<number>((resolve) => { const probe = createServer(); probe.listen(0, '127.0.0.1', () => { const { port } = probe.address() as { port: number }; probe.close(() => resolve(port)); }); });
    const timings: Record<string, number> = {};
    for (const [label, env] of [['off', {}], ['hanging', tracingEnv(`http://127.0.0.1:${address.port}`)], ['refusing', tracingEnv(`http://127.0.0.1:${closedPort}`)]] as const) {
      const measured = await startTestGateway({ ...upstreamEnv(), ...env });
      try {
        timings[label] = await timeRequests(measured.url, 40);
      } finally {
        await measured.stop();
      }
    }
    console.log(`mean request ms with the collector off/hanging/refusing: ${JSON.stringify(timings)}`);
    // Loose on purpose (a shared machine): an exporter in the request's path would cost its 10 s timeout.
    expect(timings.hanging).toBeLessThan((timings.off ?? 0) * 5 + 250);
    expect(timings.refusing).toBeLessThan((timings.off ?? 0) * 5 + 250);
  });
});
