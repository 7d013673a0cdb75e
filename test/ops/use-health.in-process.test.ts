/**
 * useHealth, in process, against both environments' emulators over HTTP and session and cache
 * stores (memory, a real Redis on TEST_REDIS_URL, or Redis on a port nobody listens on), with a
 * clock the test moves: /healthcheck while the process runs; /readiness 200 while serving, `ready`
 * or `degraded` naming each dependency up or down (never a URL), 503 before and after serving; the
 * dependency gauge; one set of states reused for cacheMs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import { createRedisCacheStore } from '../../src/cache/redis-cache-store';
import { createLifecycle } from '../../src/observability/lifecycle';
import { createMetrics } from '../../src/observability/metrics';
import { useHealth, type HealthOptions } from '../../src/ops/use-health';
import { createRedisClient, waitForReady, type RedisClient } from '../../src/redis';
import { parseRedisTarget } from '../../src/config/redis-url';
import { createMemorySessionStore } from '../../src/session/memory-session-store';
import { createRedisSessionStore } from '../../src/session/redis-session-store';
import { upstreamTarget } from '../../src/upstream/target';
import { control, useEmulator } from '../support/emulator';
import { ownRedis } from '../support/redis-server';
import { yogaWith } from '../support/yoga';
import { TEST_REDIS_URL as REDIS_URL } from '../support/gateway';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');

const clients: RedisClient[] = [];
afterEach(() => {
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

const ALL_UP = { sessionStore: 'up', cacheStore: 'up', upstreamSandbox: 'up', upstreamProduction: 'up' };

function health(options: Partial<HealthOptions> = {}) {
  let now = 5_000_000;
  const lifecycle = createLifecycle();
  lifecycle.serving();
  const metrics = createMetrics({ processMetrics: false });
  const server = yogaWith([
    useHealth({
      sessionStore: createMemorySessionStore(),
      cacheStore: createMemoryCacheStore(),
      upstreams: { sandbox: upstreamTarget('sandbox', sandbox.url), production: upstreamTarget('production', production.url) },
      clock: () => now,
      lifecycle,
      metrics,
      ...options,
    }),
  ]);
  const readiness = async () => {
    const response = await server.fetch('/readiness');
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as { status: string; dependencies: Record<string, string> } };
  };
  return { server, readiness, lifecycle, metrics, advance: (ms: number) => (now += ms) };
}

const failing = (url: string, settings: Record<string, unknown>) => control(url, 'PATCH', '/__emulator/settings', settings);
/** The upstream's GraphQL endpoint hits since the last call. */
async function upstreamHits(url: string): Promise<number> {
  const requests = await control<{ path: string }[]>(url, 'GET', '/__emulator/requests');
  await control(url, 'DELETE', '/__emulator/requests');
  return requests.body.filter((request) => request.path === '/v2/graphql').length;
}

describe('useHealth', () => {
  it('answers /healthcheck 200 while the process runs, asking no dependency', async () => {
    const { server } = health({ sessionStore: await redisSessionStore((await ownRedis()).url, { connected: false }) });
    await failing(sandbox.url, { failStatus: 503 });
    await upstreamHits(sandbox.url);
    const response = await server.fetch('/healthcheck');
    expect([response.status, await response.json()]).toEqual([200, { status: 'ok' }]);
    expect(await upstreamHits(sandbox.url)).toBe(0);
  });

  it('answers /readiness 200 ready when both stores and both upstreams answer', async () => {
    const { readiness } = health({ sessionStore: await redisSessionStore(REDIS_URL) });
    expect(await readiness()).toMatchObject({ status: 200, body: { status: 'ready', dependencies: ALL_UP } });
  });

  it('stays 200, degraded, naming an upstream that answers 5xx as down, without its URL', async () => {
    await failing(production.url, { failStatus: 502 });
    const { readiness } = health();
    const answer = await readiness();
    expect(answer).toMatchObject({ status: 200, body: { status: 'degraded', dependencies: { ...ALL_UP, upstreamProduction: 'down' } } });
    expect(answer.text).not.toMatch(/http|127\.0\.0\.1|localhost/);
  });

  it('stays 200, degraded, naming an unreachable session store as down, without its URL', async () => {
    const absent = await ownRedis();
    const { readiness } = health({ sessionStore: await redisSessionStore(absent.url, { connected: false }) });
    const answer = await readiness();
    expect(answer).toMatchObject({ status: 200, body: { status: 'degraded', dependencies: { ...ALL_UP, sessionStore: 'down' } } });
    expect(answer.text).not.toContain(String(absent.port));
  });

  it('stays 200, degraded, naming an unreachable cache store as down', async () => {
    const { readiness } = health({ cacheStore: await absentCacheStore() });
    expect(await readiness()).toMatchObject({ status: 200, body: { status: 'degraded', dependencies: { ...ALL_UP, cacheStore: 'down' } } });
  });

  it('counts an upstream that does not answer within timeoutMs as down', async () => {
    await failing(sandbox.url, { hangMs: 5_000 });
    const { readiness } = health({ timeoutMs: 150 });
    const started = Date.now();
    expect((await readiness()).body.dependencies).toEqual({ ...ALL_UP, upstreamSandbox: 'down' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('answers 503 starting before the gateway serves, and 503 stopping once it stops, with the states last found', async () => {
    const lifecycle = createLifecycle();
    const { readiness } = health({ lifecycle });
    expect(await readiness()).toMatchObject({ status: 503, body: { status: 'starting', dependencies: {} } });
    lifecycle.serving();
    expect((await readiness()).status).toBe(200);
    lifecycle.stopping();
    expect(await readiness()).toMatchObject({ status: 503, body: { status: 'stopping', dependencies: ALL_UP } });
  });

  it('answers stopping at once, without waiting for a dependency that hangs', async () => {
    await failing(sandbox.url, { hangMs: 5_000 });
    const lifecycle = createLifecycle();
    lifecycle.stopping();
    const { readiness } = health({ lifecycle, timeoutMs: 2_000 });
    const started = Date.now();
    expect((await readiness()).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('gives the states it last found as statement_gateway_dependency_up, 1 up and 0 down, asking no dependency at a scrape', async () => {
    await failing(sandbox.url, { failStatus: 503 });
    const { metrics, readiness, advance } = health();
    expect(await metrics.registry.metrics()).not.toContain('statement_gateway_dependency_up{');
    await readiness();
    advance(60_000);
    await upstreamHits(sandbox.url);
    const text = await metrics.registry.metrics();
    expect(await upstreamHits(sandbox.url)).toBe(0);
    expect(text).toContain('statement_gateway_dependency_up{dependency="upstreamSandbox"} 0');
    for (const dependency of ['sessionStore', 'cacheStore', 'upstreamProduction']) expect(text).toContain(`statement_gateway_dependency_up{dependency="${dependency}"} 1`);
  });

  it('reuses one set of states for cacheMs on its clock (no dependency asked again), then assesses anew', async () => {
    await failing(production.url, { failStatus: 503 });
    const { readiness, advance } = health({ cacheMs: 1_000 });
    expect((await readiness()).body.status).toBe('degraded');
    await failing(production.url, { failStatus: null });
    await upstreamHits(sandbox.url);
    advance(999);
    expect((await readiness()).body.status).toBe('degraded');
    expect(await upstreamHits(sandbox.url)).toBe(0);
    advance(1);
    expect((await readiness()).body.status).toBe('ready');
    expect(await upstreamHits(sandbox.url)).toBe(1);
  });

  it('shares one assessment between readiness requests that arrive together', async () => {
    const { server } = health();
    await upstreamHits(sandbox.url);
    const answers = await Promise.all(Array.from({ length: 5 }, () => server.fetch('/readiness')));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await upstreamHits(sandbox.url)).toBe(1);
  });

  it('leaves every other path to the plugins after it', async () => {
    const { server } = health();
    expect((await server.graphql('{ hello }')).body.data).toEqual({ hello: 'world' });
  });
});
