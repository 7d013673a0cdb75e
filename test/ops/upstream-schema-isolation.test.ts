/**
 * The upstream schema check beside real traffic, measured: while the check's own calls hang or
 * are cut (a proxy in front of the sandbox emulator does it to the service account's calls only),
 * users' requests keep their latency and never fail, and the circuit stays closed
 * (UPSTREAM_CIRCUIT_FAILURES=1). And replicas on one Redis share the check: one introspection per
 * environment per interval, whatever their number. The figures are printed for docs/operations.md.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { control } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { scrape } from '../support/metrics';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy';
import { serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';
import { SCHEMA_TEST_TOKEN as TOKEN, upstreamSchemaStatuses as statusesOf } from '../support/schema-check';
const checker = testServiceAccount('schema-isolation');
let sandbox: RunningEmulator;
let production: RunningEmulator;

beforeAll(async () => {
  [sandbox, production] = await Promise.all([startEmulator({ environment: 'sandbox' }), startEmulator({ environment: 'production' })]);
  expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: checker.email, password: checker.password })).status).toBe(201);
});
afterAll(async () => {
  await Promise.all([sandbox?.close(), production?.close()]);
});

const base = () => ({ UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY, OPS_TOKEN: TOKEN, ...serviceAccountsEnv([checker]) });

/** Sequential reads for `ms` by one signed-in user: each one's latency, and the codes of any that failed. */
async function reads(browser: Browser, ms: number): Promise<{ latencies: number[]; failures: string[] }> {
  const latencies: number[] = [];
  const failures: string[] = [];
  for (const until = Date.now() + ms; Date.now() < until;) {
    const started = performance.now();
    const answer = await browser.graphql('{ secretGreeting { response } getStatements(first: 5) { statements { nodes { otxId } } } }');
    latencies.push(performance.now() - started);
    failures.push(...answer.codes);
  }
  return { latencies, failures };
}
const percentile = (values: readonly number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? 0;
const summary = (values: readonly number[]) => ({ n: values.length, p50: +percentile(values, 0.5).toFixed(1), p95: +percentile(values, 0.95).toFixed(1), max: +Math.max(...values).toFixed(1) });

describe('requests while the check hangs or its upstream is down', () => {
  let proxy: RecordingProxy;
  let gateway: TestGateway;
  beforeAll(async () => {
    proxy = await startRecordingProxy(() => sandbox.url);
    gateway = await startTestGateway({ ...base(), UPSTREAM_SANDBOX_URL: proxy.url, UPSTREAM_SCHEMA_CHECK_INTERVAL: '1s', UPSTREAM_TIMEOUT_MS: '1000', UPSTREAM_CIRCUIT_FAILURES: '1', RATE_LIMIT_SESSION: '1000000/1m' });
  });
  afterAll(async () => {
    await gateway?.stop();
    await proxy?.close();
  });

  it('keeps users\' latency and answers, and the circuit closed, while every check hangs and then is cut', async () => {
    const user = new Browser(gateway.url);
    expect((await user.login('demo@example.com', 'demo-password-0123456789')).codes).toEqual([]);
    await expect.poll(async () => (await statusesOf(gateway.url)).sandbox.status).toBe('same');
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const healthy = await reads(user, 4_000);
    delay.disable();
    const loopWhileChecking = { p99: +(delay.percentile(99) / 1e6).toFixed(1), max: +(delay.max / 1e6).toFixed(1) };

    // The service account's calls (the check's) hang; a user's go through.
    proxy.fault = ({ headers }) => (headers.uid === checker.email ? 'hang' : undefined);
    const hanging = await reads(user, 4_000);
    const hangStatus = (await statusesOf(gateway.url)).sandbox;
    proxy.fault = ({ headers }) => (headers.uid === checker.email ? 'drop' : undefined);
    const down = await reads(user, 3_000);
    const downStatus = (await statusesOf(gateway.url)).sandbox;
    proxy.fault = undefined;

    const figures = { healthy: summary(healthy.latencies), hanging: summary(hanging.latencies), down: summary(down.latencies), loopWhileChecking };
    console.log('upstream schema check beside requests (ms):', JSON.stringify(figures));
    expect([...healthy.failures, ...hanging.failures, ...down.failures]).toEqual([]);
    expect(hangStatus).toMatchObject({ status: 'failed', reason: expect.stringMatching(/UPSTREAM_UNAVAILABLE|UPSTREAM_TIMEOUT_MS/) });
    expect(downStatus.status).toBe('failed');
    // Untouched: no request waited for a check (a hung one takes UPSTREAM_TIMEOUT_MS, 1000 ms here);
    // the margins are a loaded CI machine's, far below what waiting for a check would cost.
    for (const phase of [hanging, down]) {
      expect(percentile(phase.latencies, 0.95)).toBeLessThan(percentile(healthy.latencies, 0.95) + 200);
      expect(Math.max(...phase.latencies)).toBeLessThan(900);
    }
    const metrics = await scrape(gateway.url, `Bearer ${TOKEN}`);
    expect(metrics.sum('statement_gateway_upstream_circuit_state', { environment: 'sandbox' })).toBe(0);
  });
});

describe('replicas on one Redis', () => {
  const gateways: TestGateway[] = [];
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
  });

  it('introspect once per environment per interval between them, and all show that one result', async () => {
    const intervalMs = 2_000;
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const started = Date.now();
    gateways.push(...(await Promise.all([0, 1, 2].map(() => startTestGateway({ ...base(), UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_SCHEMA_CHECK_INTERVAL: `${intervalMs / 1000}s` })))));
    await new Promise((resolve) => setTimeout(resolve, 5 * intervalMs));
    const elapsed = Date.now() - started;
    const introspections = sandbox.state.requests.filter((request) => request.operations.includes('__schema')).length;
    const intervals = elapsed / intervalMs;
    console.log('replicas sharing the check:', JSON.stringify({ replicas: gateways.length, intervalMs, elapsedMs: elapsed, introspections, uncoordinatedWouldBe: Math.ceil(intervals) * gateways.length }));
    // One at start, then at most one per interval (a loaded machine starts the replicas late, so
    // fewer): never one per replica.
    expect(introspections).toBeGreaterThanOrEqual(2);
    expect(introspections).toBeLessThanOrEqual(Math.ceil(intervals) + 1);
    const checkedAt = await Promise.all(gateways.map(async (gateway) => (await statusesOf(gateway.url)).sandbox));
    for (const check of checkedAt) expect(check.status).toBe('same');
    await expect.poll(async () => new Set((await Promise.all(gateways.map(async (gateway) => (await statusesOf(gateway.url)).sandbox.checkedAt)))).size, { timeout: 2 * intervalMs + 3_000 }).toBe(1);
  });
});
