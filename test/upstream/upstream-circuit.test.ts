/**
 * The circuit of each upstream environment (src/upstream/circuit.ts) on a gateway in front of the
 * emulators: it opens after consecutive failed calls, then answers at once without calling the
 * upstream, still serves stale definitions, lets one call through after its cooldown, and closes
 * or opens again on that call's outcome. Timed-out calls open it only when a probe of the upstream
 * fails too: one user's slow reads (held by a proxy, as heavy PDF reads would be) open nothing,
 * an upstream that hangs for everyone still does. Each test has a gateway of its own (a fresh circuit).
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { scrape } from '../support/metrics';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const redis = new Redis(TEST_REDIS_URL);
let gateway: TestGateway | undefined;
let proxy: RecordingProxy | undefined;
afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
  await proxy?.close();
  proxy = undefined;
});
afterAll(() => redis.disconnect());

const GREETING = '{ secretGreeting { response } }';
const DEFINITIONS = '{ statementDefinitions { definitions { identifier } } }';
const FAILURES = 3;
const COOLDOWN_MS = 1_000;

/** A gateway whose circuits open after three failed calls for a second; no retries, so calls are attempts. */
async function signedIn(extra: Record<string, string> = {}): Promise<{ gateway: TestGateway; browser: Browser }> {
  gateway = await startTestGateway({
    UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    UPSTREAM_RETRIES: '0', UPSTREAM_CIRCUIT_FAILURES: String(FAILURES), UPSTREAM_CIRCUIT_COOLDOWN: `${COOLDOWN_MS}ms`, ...extra,
  });
  const browser = new Browser(gateway.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  return { gateway, browser };
}

const upstreamCalls = async (url = sandbox.url) => (await control<unknown[]>(url, 'GET', '/__emulator/requests')).body.length;
const circuitState = async (url: string, environment = 'sandbox') => (await scrape(url)).sum('statement_gateway_upstream_circuit_state', { environment });

async function openCircuit(browser: Browser): Promise<void> {
  await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
  for (let i = 0; i < FAILURES; i++) expect((await browser.graphql(GREETING)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
}

const pastCooldown = () => new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS + 100));

describe('the upstream circuit', () => {
  it('opens after UPSTREAM_CIRCUIT_FAILURES failed calls, then answers UPSTREAM_UNAVAILABLE with Retry-After without calling the upstream', async () => {
    const { gateway, browser } = await signedIn();
    expect(await circuitState(gateway.url)).toBe(0);
    await openCircuit(browser);
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const refused = await browser.graphql(GREETING);
    expect(refused.status).toBe(503);
    expect(refused.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.errors?.[0]?.extensions?.retryAfterSeconds).toBe(1);
    expect(await upstreamCalls()).toBe(0);
    expect(await circuitState(gateway.url)).toBe(2);
  });

  it('answers an open circuit with Retry-After on Mesh\'s execution path too (FAST_PATH=false)', async () => {
    const { browser } = await signedIn({ FAST_PATH: 'false' });
    await openCircuit(browser);
    const refused = await browser.graphql(GREETING);
    expect(refused.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.errors?.[0]?.extensions?.retryAfterSeconds).toBe(1);
  });

  it('keeps the other environment\'s circuit closed', async () => {
    const { gateway, browser } = await signedIn();
    await openCircuit(browser);
    const other = new Browser(gateway.url);
    expect((await other.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password, 'PRODUCTION')).codes).toEqual([]);
    expect((await other.graphql(GREETING)).codes).toEqual([]);
    expect(await circuitState(gateway.url, 'production')).toBe(0);
  });

  it('counts an upstream 4xx as an answer, so it never opens the circuit', async () => {
    const { gateway, browser } = await signedIn();
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 418 });
    for (let i = 0; i < FAILURES + 1; i++) expect((await browser.graphql(GREETING)).codes).toEqual(['UPSTREAM_ERROR']);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null });
    expect((await browser.graphql(GREETING)).codes).toEqual([]);
    expect(await circuitState(gateway.url)).toBe(0);
  });

  it('still serves stale definitions while the circuit is open', async () => {
    const shared = await redis.keys('sgw:cache:{*}:definitions*');
    if (shared.length) await redis.del(...shared);
    const { browser } = await signedIn({ CACHE_DEFINITIONS_FRESH: '1s' });
    expect((await browser.graphql(DEFINITIONS)).codes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await openCircuit(browser);
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const stale = await browser.graphql(DEFINITIONS);
    expect(stale.codes).toEqual([]);
    expect(stale.body.data?.statementDefinitions.definitions).toHaveLength(12);
    expect(await upstreamCalls()).toBe(0);
  });

  it('lets one call through after the cooldown, and closes when it succeeds', async () => {
    const { gateway, browser } = await signedIn();
    await openCircuit(browser);
    await pastCooldown();
    expect(await circuitState(gateway.url)).toBe(1);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null, latencyMs: 300 });
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    // Distinct documents: identical queries in flight at once would share one call anyway.
    const answers = await Promise.all(Array.from({ length: 4 }, (_, i) => browser.graphql(`{ g${i}: secretGreeting { response } }`)));
    expect(answers.map((answer) => answer.codes).sort()).toEqual([[], ['UPSTREAM_UNAVAILABLE'], ['UPSTREAM_UNAVAILABLE'], ['UPSTREAM_UNAVAILABLE']]);
    expect(await upstreamCalls()).toBe(1);
    expect(await circuitState(gateway.url)).toBe(0);
    expect((await browser.graphql(GREETING)).codes).toEqual([]);
  });

  it('opens again when the call after the cooldown fails', async () => {
    const { gateway, browser } = await signedIn();
    await openCircuit(browser);
    await pastCooldown();
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    expect((await browser.graphql(GREETING)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(await upstreamCalls()).toBe(1);
    expect(await circuitState(gateway.url)).toBe(2);
    expect((await browser.graphql(GREETING)).headers.get('retry-after')).toBe('1');
    expect(await upstreamCalls()).toBe(1);
  });

  it('counts a call that failed after its retries once', async () => {
    const { gateway, browser } = await signedIn({ UPSTREAM_RETRIES: '1' });
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    for (let i = 0; i < FAILURES - 1; i++) expect((await browser.graphql(GREETING)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(await upstreamCalls()).toBeGreaterThanOrEqual(2 * (FAILURES - 1));
    expect(await circuitState(gateway.url)).toBe(0);
  });
});

describe('timed-out calls and the circuit', () => {
  const HEAVY = { email: 'heavy-reader@example.com', password: 'heavy-reader-password-0123' };
  /** Three pages of 60 PDFs at once: distinct reads (the same read in flight twice would be one call). */
  const heavyReads = (browser: Browser) =>
    Promise.all([0, 1, 2].map((page) => browser.graphql(`{ getStatements(first: 60${page ? `, after: "${btoa(String(60 * page))}"` : ''}) { statements { nodes { otxId pdf } } } }`)));

  it('stay closed while one identity\'s reads time out and the upstream answers everyone else (regression: one user opened the circuit for all)', async () => {
    proxy = await startRecordingProxy(() => sandbox.url);
    const { gateway, browser: other } = await signedIn({ UPSTREAM_SANDBOX_URL: proxy.url, UPSTREAM_TIMEOUT_MS: '300', UPSTREAM_CIRCUIT_COOLDOWN: '10s' });
    await control(sandbox.url, 'POST', '/__emulator/accounts', HEAVY);
    await control(sandbox.url, 'POST', '/__emulator/statements', { email: HEAVY.email, form: 'Fw2', count: 180 });
    const heavy = new Browser(gateway.url);
    expect((await heavy.login(HEAVY.email, HEAVY.password)).codes).toEqual([]);
    // The upstream takes longer than UPSTREAM_TIMEOUT_MS over this user's reads, and no longer over anyone else's.
    proxy.fault = ({ headers }) => (headers.uid === HEAVY.email ? 'hang' : undefined);

    for (let round = 0; round < 3; round++) {
      expect((await heavyReads(heavy)).map((answer) => answer.codes)).toEqual([['UPSTREAM_UNAVAILABLE'], ['UPSTREAM_UNAVAILABLE'], ['UPSTREAM_UNAVAILABLE']]);
      expect((await other.graphql(GREETING)).codes).toEqual([]);
    }
    // The timeouts were judged by probes of the upstream, which answered: at most one per round of three.
    const probes = () => proxy?.exchanges.filter((exchange) => exchange.method === 'GET' && exchange.path === '/v2/graphql').length ?? 0;
    await expect.poll(probes).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(probes()).toBeLessThanOrEqual(3);
    expect(await circuitState(gateway.url)).toBe(0);
    expect((await other.graphql(GREETING)).codes).toEqual([]);
  });

  it('open it when the upstream hangs for everyone, once the probe of the upstream has failed too', async () => {
    const { gateway, browser } = await signedIn({ UPSTREAM_TIMEOUT_MS: '300', UPSTREAM_CIRCUIT_COOLDOWN: '10s' });
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { hangMs: 10_000 });
    for (let i = 0; i < FAILURES; i++) expect((await browser.graphql(GREETING)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    // The probe gives up after 2 s.
    await expect.poll(() => circuitState(gateway.url), { timeout: 5_000 }).toBe(2);
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const refused = await browser.graphql(GREETING);
    expect(refused.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(5);
    expect(await upstreamCalls()).toBe(0);
  });

  it('stay closed while the upstream answers one identity\'s calls 500, and open when it answers everyone 500 (regression: one input that crashes the upstream opened the circuit for all)', async () => {
    proxy = await startRecordingProxy(() => sandbox.url);
    const { gateway, browser: other } = await signedIn({ UPSTREAM_SANDBOX_URL: proxy.url, UPSTREAM_CIRCUIT_COOLDOWN: '10s' });
    await control(sandbox.url, 'POST', '/__emulator/accounts', HEAVY);
    const crashing = new Browser(gateway.url);
    expect((await crashing.login(HEAVY.email, HEAVY.password)).codes).toEqual([]);
    proxy.fault = ({ method, headers }) => (method === 'POST' && headers.uid === HEAVY.email ? { status: 500, contentType: 'application/json', body: '{}' } : undefined);
    for (let i = 0; i < 3 * FAILURES; i++) expect((await crashing.graphql(`{ g${i}: secretGreeting { response } }`)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await circuitState(gateway.url)).toBe(0);
    expect((await other.graphql(GREETING)).codes).toEqual([]);
    // The upstream failing everyone fails the probe too (once the last probe's half-second result is stale).
    proxy.fault = () => ({ status: 500, contentType: 'application/json', body: '{}' });
    let call = 0;
    await expect.poll(async () => {
      await other.graphql(`{ o${call++}: secretGreeting { response } }`);
      return circuitState(gateway.url);
    }, { timeout: 8_000, interval: 200 }).toBe(2);
  });
});
