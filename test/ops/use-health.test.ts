/**
 * useHealth and its background checks (src/ops/dependency-watch.ts), in process, against both
 * environments' emulators over HTTP and session and cache stores (memory, a real Redis on
 * TEST_REDIS_URL, or Redis on a port nobody listens on): /healthcheck while the process runs;
 * /readiness 200 while serving, `ready` or `degraded` naming each dependency up or down (never a
 * URL), 503 before and after serving; every answer at once, from the states last found, even while
 * an upstream hangs; each dependency checked at most once a second, from the first /readiness until
 * the checks are closed; the dependency gauge.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import { createRedisCacheStore } from '../../src/cache/redis-cache-store';
import { createLifecycle, type Lifecycle } from '../../src/observability/lifecycle';
import { createMetrics } from '../../src/observability/metrics';
import { createDependencyWatch, type DependencyWatchOptions } from '../../src/ops/dependency-watch';
import { useHealth } from '../../src/ops/use-health';
import { createRedisClient, waitForReady, type RedisClient } from '../../src/redis';
import { parseRedisTarget } from '../../src/config/redis-url';
import { createMemorySessionStore } from '../../src/session/memory-session-store';
import { createRedisSessionStore } from '../../src/session/redis-session-store';
import { createUpstreamProbe } from '../../src/upstream/probe';
import { upstreamTarget } from '../../src/upstream/target';
import { control, useEmulator } from '../support/emulator';
import { ownRedis } from '../support/redis-server';
import { timed } from '../support/timing';
import { yogaWith } from '../support/yoga';
import { TEST_REDIS_URL as REDIS_URL } from '../support/gateway';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');

const clients: RedisClient[] = [];
const closing: (() => void)[] = [];
afterEach(() => {
  for (const close of closing.splice(0)) close();
  for (const client of clients.splice(0)) client.disconnect();
});
/** A Redis session store; connected first (as the runtime waits for it) unless nobody listens at `url`. */
const redisSessionStore = async (url: string, { connected = true } = {}) => {
  const client = createRedisClient({ target: parseRedisTarget(url) });
  clients.push(client);
  if (connected) expect(await waitForReady(client, 3_000)).toBe(true);
  return createRedisSessionStore(client);
};

/** A Redis cache store on a port nobody listens on. */
const absentCacheStore = async () => {
  const { url } = await ownRedis();
  const redis = createRedisClient({ target: parseRedisTarget(url), commandTimeoutMs: 250 });
  const subscriber = createRedisClient({ target: parseRedisTarget(url) });
  clients.push(redis, subscriber);
  return createRedisCacheStore({ redis, subscriber });
};

/**
 * "At once": the contract's 100 ms, with room for a loaded two-core CI run to schedule this worker
 * late; a readiness that waits on its checks takes 900 ms and more, so the bound still tells them apart.
 */
const AT_ONCE_MS = 250;
const ALL_UP = { sessionStore: 'up', cacheStore: 'up', upstreamSandbox: 'up', upstreamProduction: 'up' };

interface HealthSetup extends Partial<Omit<DependencyWatchOptions, 'upstreams'>> {
  readonly lifecycle?: Lifecycle;
  /** The upstream probe's timeout (2 s by default, as the contract's). */
  readonly probeTimeoutMs?: number;
}

function health({ lifecycle = serving(), probeTimeoutMs, ...watch }: HealthSetup = {}) {
  const metrics = createMetrics({ processMetrics: false });
  const probe = createUpstreamProbe({
    upstreams: { sandbox: upstreamTarget('sandbox', sandbox.url), production: upstreamTarget('production', production.url) },
    ...(probeTimeoutMs === undefined ? {} : { timeoutMs: probeTimeoutMs }),
  });
  const dependencies = createDependencyWatch({ sessionStore: createMemorySessionStore(), cacheStore: createMemoryCacheStore(), upstreams: probe, ...watch });
  closing.push(() => dependencies.close(), () => probe.close());
  const server = yogaWith([useHealth({ dependencies, lifecycle, metrics })]);
  const readiness = async () => {
    const started = Date.now();
    const response = await server.fetch('/readiness');
    const text = await response.text();
    return { status: response.status, text, ms: Date.now() - started, body: JSON.parse(text) as { status: string; dependencies: Record<string, string> } };
  };
  /** Asks /readiness until every dependency has been found once (the first checks are under way after the first ask). */
  const settled = async () => {
    await expect.poll(async () => Object.keys((await readiness()).body.dependencies).length, { interval: 50 }).toBe(4);
    return readiness();
  };
  return { server, readiness, settled, lifecycle, metrics, dependencies };
}

function serving(): Lifecycle {
  const lifecycle = createLifecycle();
  lifecycle.serving();
  return lifecycle;
}

const failing = (url: string, settings: Record<string, unknown>) => control(url, 'PATCH', '/__emulator/settings', settings);
/** The upstream's GraphQL endpoint hits since the last call. */
async function upstreamHits(url: string): Promise<number> {
  const requests = await control<{ path: string }[]>(url, 'GET', '/__emulator/requests');
  await control(url, 'DELETE', '/__emulator/requests');
  return requests.body.filter((request) => request.path === '/v2/graphql').length;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('useHealth', () => {
  it('answers /healthcheck 200 while the process runs, asking no dependency', async () => {
    const { server } = health({ sessionStore: await redisSessionStore((await ownRedis()).url, { connected: false }) });
    await failing(sandbox.url, { failStatus: 503 });
    await upstreamHits(sandbox.url);
    const response = await server.fetch('/healthcheck');
    expect([response.status, await response.json()]).toEqual([200, { status: 'ok' }]);
    await sleep(100);
    expect(await upstreamHits(sandbox.url)).toBe(0);
  });

  it('answers /readiness 200 ready when both stores and both upstreams answer', async () => {
    const { settled } = health({ sessionStore: await redisSessionStore(REDIS_URL) });
    expect(await settled()).toMatchObject({ status: 200, body: { status: 'ready', dependencies: ALL_UP } });
  });

  it('stays 200, degraded, naming an upstream that answers 5xx as down, without its URL', async () => {
    await failing(production.url, { failStatus: 502 });
    const answer = await health().settled();
    expect(answer).toMatchObject({ status: 200, body: { status: 'degraded', dependencies: { ...ALL_UP, upstreamProduction: 'down' } } });
    expect(answer.text).not.toMatch(/http|127\.0\.0\.1|localhost/);
  });

  it('stays 200, degraded, naming an unreachable session store as down, without its URL', async () => {
    const absent = await ownRedis();
    const answer = await health({ sessionStore: await redisSessionStore(absent.url, { connected: false }) }).settled();
    expect(answer).toMatchObject({ status: 200, body: { status: 'degraded', dependencies: { ...ALL_UP, sessionStore: 'down' } } });
    expect(answer.text).not.toContain(String(absent.port));
  });

  it('stays 200, degraded, naming an unreachable cache store as down', async () => {
    const answer = await health({ cacheStore: await absentCacheStore() }).settled();
    expect(answer).toMatchObject({ status: 200, body: { status: 'degraded', dependencies: { ...ALL_UP, cacheStore: 'down' } } });
  });

  it('answers at once while an upstream hangs, and names it down once its probe gave up', async () => {
    await failing(sandbox.url, { hangMs: 5_000 });
    const { readiness } = health({ probeTimeoutMs: 300 });
    const first = await readiness();
    expect(first.ms).toBeLessThan(AT_ONCE_MS);
    expect(first.body.status).toBe('ready');
    await expect.poll(async () => (await readiness()).body.dependencies.upstreamSandbox, { interval: 50, timeout: 2_000 }).toBe('down');
    const answer = await readiness();
    expect(answer).toMatchObject({ status: 200, body: { status: 'degraded', dependencies: { ...ALL_UP, upstreamSandbox: 'down' } } });
    expect(answer.ms).toBeLessThan(AT_ONCE_MS);
  });

  it('shows an upstream that stops answering as down within 5 s, and up again once it answers', async () => {
    const { settled, readiness } = health();
    expect((await settled()).body.status).toBe('ready');
    await failing(sandbox.url, { hangMs: 10_000 });
    const { ms } = await timed(() => expect.poll(async () => (await readiness()).body.dependencies.upstreamSandbox, { interval: 50, timeout: 5_000 }).toBe('down'));
    expect(ms).toBeLessThan(5_000);
    await failing(sandbox.url, { hangMs: 0 });
    await expect.poll(async () => (await readiness()).body.status, { interval: 50, timeout: 5_000 }).toBe('ready');
  });

  it('answers 503 starting before the gateway serves, and 503 stopping once it stops, with the states last found', async () => {
    const lifecycle = createLifecycle();
    const { readiness } = health({ lifecycle });
    expect(await readiness()).toMatchObject({ status: 503, body: { status: 'starting', dependencies: {} } });
    lifecycle.serving();
    await expect.poll(async () => (await readiness()).body, { interval: 50 }).toEqual({ status: 'ready', dependencies: ALL_UP });
    lifecycle.stopping();
    expect(await readiness()).toMatchObject({ status: 503, body: { status: 'stopping', dependencies: ALL_UP } });
  });

  it('answers stopping at once when SIGTERM lands while the check of a hanging upstream still waits', async () => {
    await failing(sandbox.url, { hangMs: 5_000 });
    const { readiness, lifecycle } = health();
    const before = await readiness();
    expect([before.status, before.ms < 100]).toEqual([200, true]);
    lifecycle.stopping();
    const after = await readiness();
    expect([after.status, after.body.status, after.ms < 100]).toEqual([503, 'stopping', true]);
  });

  it('gives the states it last found as statement_gateway_dependency_up, 1 up and 0 down; a scrape asks no dependency and starts no check', async () => {
    await failing(sandbox.url, { failStatus: 503 });
    const { metrics, settled } = health();
    await upstreamHits(sandbox.url);
    expect(await metrics.registry.metrics()).not.toContain('statement_gateway_dependency_up{');
    await sleep(200);
    expect(await upstreamHits(sandbox.url)).toBe(0);
    await settled();
    const text = await metrics.registry.metrics();
    expect(text).toContain('statement_gateway_dependency_up{dependency="upstreamSandbox"} 0');
    for (const dependency of ['sessionStore', 'cacheStore', 'upstreamProduction']) expect(text).toContain(`statement_gateway_dependency_up{dependency="${dependency}"} 1`);
  });

  it('checks each dependency at most once a second however often /readiness is asked, answering each at once', async () => {
    const { server, readiness } = health();
    await upstreamHits(sandbox.url);
    const answers = await Promise.all(Array.from({ length: 5 }, () => server.fetch('/readiness')));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    const started = Date.now();
    let slowest = 0;
    while (Date.now() - started < 2_500) {
      slowest = Math.max(slowest, (await readiness()).ms);
      await sleep(20);
    }
    const hits = await upstreamHits(sandbox.url);
    // Checks began at about 0, 1 and 2 s: still checking, never more often.
    expect(hits).toBeGreaterThanOrEqual(2);
    expect(hits).toBeLessThanOrEqual(3);
    expect(slowest).toBeLessThan(AT_ONCE_MS);
  });

  it('stops checking once closed', async () => {
    const { settled, dependencies } = health();
    await settled();
    dependencies.close();
    await upstreamHits(sandbox.url);
    await sleep(1_500);
    expect(await upstreamHits(sandbox.url)).toBe(0);
  });

  it('leaves every other path to the plugins after it', async () => {
    const { server } = health();
    expect((await server.graphql('{ hello }')).body.data).toEqual({ hello: 'world' });
  });
});
