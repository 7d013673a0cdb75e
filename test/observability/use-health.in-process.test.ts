/**
 * useHealth, in process, against both environments' emulators over HTTP and a session store
 * (memory, a real Redis on TEST_REDIS_URL, or Redis on a port nobody listens on), with a clock the
 * test moves: /healthcheck while the process runs; /readiness 200 or 503 naming each dependency
 * that failed (never a URL), one verdict reused for cacheMs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { useHealth, type HealthOptions } from '../../src/observability/use-health';
import { createRedisClient, waitForReady, type RedisClient } from '../../src/redis';
import { parseRedisTarget } from '../../src/config/redis-url';
import { createMemorySessionStore } from '../../src/session/memory-store';
import { createRedisSessionStore } from '../../src/session/redis-store';
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

function health(options: Partial<HealthOptions> = {}) {
  let now = 5_000_000;
  const server = yogaWith([
    useHealth({
      sessionStore: createMemorySessionStore(),
      upstreams: { sandbox: upstreamTarget('sandbox', sandbox.url), production: upstreamTarget('production', production.url) },
      clock: () => now,
      ...options,
    }),
  ]);
  const readiness = async () => {
    const response = await server.fetch('/readiness');
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as { status: string; failed: string[]; dependencies: Record<string, string> } };
  };
  return { server, readiness, advance: (ms: number) => (now += ms) };
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

  it('answers /readiness 200 when the session store and both upstreams answer', async () => {
    const { readiness } = health({ sessionStore: await redisSessionStore(REDIS_URL) });
    expect(await readiness()).toMatchObject({
      status: 200,
      body: { status: 'ready', failed: [], dependencies: { 'sessionStore:redis': 'ok', 'upstream:sandbox': 'ok', 'upstream:production': 'ok' } },
    });
  });

  it('answers 503 naming an upstream that answers 5xx, without its URL', async () => {
    await failing(production.url, { failStatus: 502 });
    const { readiness } = health();
    const answer = await readiness();
    expect(answer).toMatchObject({ status: 503, body: { status: 'unavailable', failed: ['upstream:production'], dependencies: { 'sessionStore:memory': 'ok', 'upstream:sandbox': 'ok' } } });
    expect(answer.text).not.toMatch(/http|127\.0\.0\.1|localhost/);
  });

  it('answers 503 naming an unreachable session store, without its URL', async () => {
    const absent = await ownRedis();
    const { readiness } = health({ sessionStore: await redisSessionStore(absent.url, { connected: false }) });
    const answer = await readiness();
    expect(answer).toMatchObject({ status: 503, body: { failed: ['sessionStore:redis'], dependencies: { 'upstream:sandbox': 'ok' } } });
    expect(answer.text).not.toContain(String(absent.port));
  });

  it('counts an upstream that does not answer within timeoutMs as failed', async () => {
    await failing(sandbox.url, { hangMs: 5_000 });
    const { readiness } = health({ timeoutMs: 150 });
    const started = Date.now();
    expect((await readiness()).body.failed).toEqual(['upstream:sandbox']);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reuses one verdict for cacheMs on its clock (no dependency asked again), then assesses anew', async () => {
    await failing(production.url, { failStatus: 503 });
    const { readiness, advance } = health({ cacheMs: 1_000 });
    expect((await readiness()).status).toBe(503);
    await failing(production.url, { failStatus: null });
    await upstreamHits(sandbox.url);
    advance(999);
    expect((await readiness()).status).toBe(503);
    expect(await upstreamHits(sandbox.url)).toBe(0);
    advance(1);
    expect((await readiness()).status).toBe(200);
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
