/**
 * statementDefinitions through the definitions cache: one shared entry per environment, any
 * selection answered from it, stale while refreshing and while the upstream fails, one upstream
 * call for concurrent misses across replicas.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countOperation, DEFINITION_NAMES as NAMES, definitionsCallsForConcurrentReads, signedInUser, takeUpstreamRequests } from '../support/cache';
import { control, useEmulator } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { scrape } from '../support/metrics';
import { upstreamTarget } from '../../src/upstream/target';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const gateways: TestGateway[] = [];
const redis = new Redis(TEST_REDIS_URL);

const FIELDS = '{ statementDefinitions { definitions { identifier title fields { identifier dataType } } } }';

async function startGateway(extra: Record<string, string> = {}): Promise<TestGateway> {
  const gateway = await startTestGateway({
    UPSTREAM_SANDBOX_URL: sandbox.url,
    UPSTREAM_PRODUCTION_URL: production.url,
    REDIS_URL: TEST_REDIS_URL,
    CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    // The refreshes counted here are the cache's own; a retried call (test/upstream/upstream-retries)
    // would add one, late, when the upstream's Retry-After says so.
    UPSTREAM_RETRIES: '0',
    ...extra,
  });
  gateways.push(gateway);
  return gateway;
}

/** Forgets the shared entries of these emulators (each test starts cold). */
async function clearSharedDefinitions() {
  const keys = await redis.keys('sgw:cache:{*}:definitions*');
  if (keys.length) await redis.del(...keys);
}

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  redis.disconnect();
});

describe('the definitions cache', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({ CACHE_DEFINITIONS_FRESH: '1h' });
  });

  it('answers a second caller of the environment from the cache, for any selection, without reaching the upstream', async () => {
    const first = await signedInUser(gateway.url, sandbox.url, { count: 0 });
    const second = await signedInUser(gateway.url, sandbox.url, { count: 0 });
    await takeUpstreamRequests(sandbox.url);

    const names = await first.browser.graphql(NAMES);
    expect(names.codes).toEqual([]);
    expect(names.body.data?.statementDefinitions.definitions).toHaveLength(12);
    const fields = await second.browser.graphql(FIELDS);
    expect(fields.codes).toEqual([]);
    const definitions = fields.body.data?.statementDefinitions.definitions as { identifier: string; fields: unknown[] }[];
    expect(definitions.find((definition) => definition.identifier === 'fw2')?.fields.length).toBeGreaterThan(10);
    expect(Object.keys(definitions[0] ?? {})).toEqual(['identifier', 'title', 'fields']);

    // At most the first call reached the upstream (earlier tests of this file may have filled it).
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'statementDefinitions')).toBeLessThanOrEqual(1);
    await second.browser.graphql(NAMES);
    await first.browser.graphql(FIELDS);
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'statementDefinitions')).toBe(0);
  });

  it('keeps one entry per environment: production is fetched from production', async () => {
    const user = await signedInUser(gateway.url, production.url, { count: 0, environment: 'PRODUCTION' });
    await takeUpstreamRequests(production.url);
    expect((await user.browser.graphql(NAMES)).codes).toEqual([]);
    expect(countOperation(await takeUpstreamRequests(production.url), 'statementDefinitions')).toBe(1);
    expect((await user.browser.graphql(NAMES)).codes).toEqual([]);
    expect(countOperation(await takeUpstreamRequests(production.url), 'statementDefinitions')).toBe(0);
  });

  it('refuses a caller without a session before any lookup', async () => {
    const anonymous = new Browser(gateway.url);
    expect((await anonymous.graphql(NAMES)).codes).toEqual(['UNAUTHENTICATED']);
    const forged = new Browser(gateway.url);
    forged.cookie = 'sgw_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const answer = await forged.graphql(NAMES);
    expect(answer.codes).toEqual(['UNAUTHENTICATED']);
    expect(answer.body.data ?? null).toBeNull();
  });
});

describe('the shared definitions entry in Redis', () => {
  it('is not served when it was edited or planted without CREDENTIAL_KEY: a miss, counted, and the upstream is asked (regression)', async () => {
    await clearSharedDefinitions();
    const writer = await startGateway({ CACHE_DEFINITIONS_FRESH: '1h' });
    const user = await signedInUser(writer.url, sandbox.url, { count: 0 });
    const genuine = await user.browser.graphql(NAMES);
    expect(genuine.codes).toEqual([]);
    const key = `sgw:cache:{${upstreamTarget('sandbox', sandbox.url).cacheNamespace}}:definitions`;
    const stored = (await redis.get(key)) ?? '';
    expect(stored).toContain('"fw2"');
    const later = String(Date.now() + 1_000);
    // Edited: a newer time and another name, the gateway's MAC kept. Planted: no MAC at all, as
    // earlier gateways wrote it.
    const lines = stored.split('\n');
    const tag = lines.length === 3 ? lines[1] : 'none';
    const edited = (lines.at(-1) ?? '').replace(/"name":"[^"]*"/g, '"name":"PLANTED"');
    expect(edited).toContain('PLANTED');
    for (const entry of [`${later}\n${tag}\n${edited}`, `${later}\n${edited}`]) {
      await redis.set(key, entry, 'PX', 3_600_000);
      await redis.set(`${key}:at`, later, 'PX', 3_600_000);
      const reader = await startGateway({ CACHE_DEFINITIONS_FRESH: '1h' });
      const other = await signedInUser(reader.url, sandbox.url, { count: 0 });
      await takeUpstreamRequests(sandbox.url);
      const answer = await other.browser.graphql(NAMES);
      expect(answer.codes).toEqual([]);
      expect(JSON.stringify(answer.body)).not.toContain('PLANTED');
      expect(answer.body).toEqual(genuine.body);
      expect(countOperation(await takeUpstreamRequests(sandbox.url), 'statementDefinitions')).toBe(1);
      expect((await scrape(reader.url)).sum('statement_gateway_cache_store_errors_total', { operation: 'open' })).toBeGreaterThanOrEqual(1);
      await reader.stop();
    }
  });
});

describe('stale definitions', () => {
  let gateway: TestGateway;
  /** A gateway that has served nothing yet: no copy of its own. */
  let cold: TestGateway;
  beforeAll(async () => {
    await clearSharedDefinitions();
    [gateway, cold] = await Promise.all([startGateway({ CACHE_DEFINITIONS_FRESH: '1s' }), startGateway({ CACHE_DEFINITIONS_FRESH: '1s' })]);
  });
  beforeEach(async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null, latencyMs: 0 });
  });

  it('are served while the upstream answers 503, and refreshed once it answers again', async () => {
    const user = await signedInUser(gateway.url, sandbox.url, { count: 0 });
    expect((await user.browser.graphql(NAMES)).codes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1_200));

    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    await takeUpstreamRequests(sandbox.url);
    for (let i = 0; i < 5; i++) {
      const stale = await user.browser.graphql(NAMES);
      expect(stale.codes).toEqual([]);
      expect(stale.body.data?.statementDefinitions.definitions).toHaveLength(12);
    }
    // The background refresh was tried, and is not retried on every request.
    const tried = countOperation(await takeUpstreamRequests(sandbox.url), 'statementDefinitions');
    expect(tried).toBeGreaterThanOrEqual(1);
    expect(tried).toBeLessThanOrEqual(2);

    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await user.browser.graphql(NAMES)).codes).toEqual([]);
    // The refresh ran in the background; now the entry is fresh again and no call follows.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'statementDefinitions')).toBe(1);
    expect((await user.browser.graphql(NAMES)).codes).toEqual([]);
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'statementDefinitions')).toBe(0);
  });

  it('give UPSTREAM_UNAVAILABLE when there is nothing to serve and the upstream fails', async () => {
    await clearSharedDefinitions();
    const user = await signedInUser(cold.url, sandbox.url, { count: 0 });
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    const answer = await user.browser.graphql(NAMES);
    expect(answer.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(JSON.stringify(answer.body)).not.toContain(sandbox.url);
  });
});

describe('concurrent misses', () => {
  let replicas: TestGateway[] = [];
  beforeAll(async () => {
    replicas = await Promise.all([startGateway(), startGateway()]);
  });

  it("never pass one caller's refused credential on to the others sharing its call", async () => {
    const gateway = replicas[0];
    if (!gateway) throw new Error('gateway not started');
    await clearSharedDefinitions();
    // The first user's upstream credential lives one second; the second user's the default.
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { tokenTtlSeconds: 1 });
    const expiring = await signedInUser(gateway.url, sandbox.url, { count: 0 });
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { tokenTtlSeconds: 1_209_600 });
    const valid = await signedInUser(gateway.url, sandbox.url, { count: 0 });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 300 });
    try {
      const first = expiring.browser.graphql(NAMES);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const [refused, answered] = await Promise.all([first, valid.browser.graphql(NAMES)]);
      expect(refused.codes).toEqual(['UNAUTHENTICATED']);
      expect(answered.codes).toEqual([]);
      expect(answered.body.data?.statementDefinitions.definitions).toHaveLength(12);
    } finally {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 0 });
    }
  });

  it('cause one upstream call for 20 requests on two gateways sharing Redis', async () => {
    const [a, b] = replicas;
    if (!a || !b) throw new Error('gateways not started');
    await clearSharedDefinitions();
    const users = await Promise.all([signedInUser(a.url, sandbox.url, { count: 0 }), signedInUser(b.url, sandbox.url, { count: 0 })]);
    expect(await definitionsCallsForConcurrentReads(sandbox.url, users.map((user) => user.browser))).toBe(1);
  });
});
