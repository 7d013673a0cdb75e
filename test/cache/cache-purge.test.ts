/**
 * What a purge (src/cache/purge.ts) drops, on both store implementations (a real Redis, never a
 * mock): each scope counts alike in a dry run and drops nothing then; sessions and every key
 * outside the caches stay; the notice reaches the other replicas' listeners. Then the cost of
 * purging one identity that holds 1,000 cached reads, on a Redis of the test's own under MONITOR.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { monitorRedis } from '../support/redis-monitor';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheKeys, type CacheStore } from '../../src/cache/cache-store';
import { indexGroups } from '../../src/cache/group-index';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import { createCachePurge } from '../../src/cache/purge';
import { createRedisCacheStore } from '../../src/cache/redis-cache-store';
import { identityScope } from '../../src/cache/scope';
import { createSealedValues, sealGroupMembers } from '../../src/cache/sealed-values';
import { createDerivedKeys } from '../../src/derived-keys';
import { createMetrics } from '../../src/observability/metrics';
import { upstreamTarget } from '../../src/upstream/target';
import { TEST_REDIS_URL } from '../support/gateway';
import { ownRedis } from '../support/redis-server';

const connections: Redis[] = [];
afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

function redisStore(url = TEST_REDIS_URL): CacheStore {
  const redis = new Redis(url);
  const subscriber = new Redis(url);
  connections.push(redis, subscriber);
  return createRedisCacheStore({ redis, subscriber });
}

/** A replica's view of the store, as createCaches builds it: groups indexed, then sealed. */
function replicaOf(store: CacheStore) {
  const keys = createDerivedKeys(Buffer.alloc(32, 7));
  const values = createSealedValues({ keys });
  // Each test its own upstream URL: namespaces (and their group indexes) of its own.
  const upstreams = { sandbox: upstreamTarget('sandbox', `http://sandbox-${randomUUID()}.test`), production: upstreamTarget('production', `http://production-${randomUUID()}.test`) };
  const metrics = createMetrics({ processMetrics: false });
  const caches = sealGroupMembers(indexGroups(store, { clock: Date.now }), values);
  const purge = createCachePurge({ store, sealed: sealGroupMembers(store, values), upstreams, metrics, clock: Date.now });
  return { caches, purge, upstreams, metrics };
}

async function fill(caches: CacheStore, scope: string, reads: number, pdfs: number) {
  const put = async (group: string, count: number, prefix: string) =>
    caches.putMembers(group, Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, value: `v${i}`, aliases: [`up-${prefix}${i}`] })), 60_000, (await caches.getMembers(group, [])).generation, 1_000);
  await put(cacheKeys.reads(scope), reads, 'read-');
  await put(cacheKeys.pdfs(scope), pdfs, 'otx-');
}

describe.each<[string, () => CacheStore]>([
  ['memory', createMemoryCacheStore],
  ['redis', redisStore],
])('a purge on the %s cache store', (_kind, create) => {
  const store = create();

  it('counts in a dry run what it then drops, scope by scope, and drops nothing in the dry run', async () => {
    const { caches, purge, upstreams, metrics } = replicaOf(store);
    const sandbox = upstreams.sandbox.cacheNamespace;
    const [alice, bob] = [identityScope(sandbox, 'alice@example.com'), identityScope(sandbox, 'bob@example.com')];
    await fill(caches, alice, 3, 4);
    await fill(caches, bob, 2, 2);
    await caches.set(cacheKeys.definitions(sandbox), 'payload', 60_000);
    const identity = { environment: 'sandbox', uid: 'alice@example.com' } as const;

    expect(await purge({ scope: 'statement', ...identity, otxId: 'otx-1', dryRun: true })).toEqual({ definitions: 0, statements: 3, pdfs: 1 });
    expect(await purge({ scope: 'statement', ...identity, otxId: 'otx-1', dryRun: false })).toEqual({ definitions: 0, statements: 3, pdfs: 1 });
    expect((await caches.getMembers(cacheKeys.pdfs(alice), ['otx-0', 'otx-1'])).values).toEqual(['v0', null]);
    expect(await purge({ scope: 'identity', ...identity, dryRun: true })).toEqual({ definitions: 0, statements: 0, pdfs: 3 });
    expect(await purge({ scope: 'identity', ...identity, dryRun: false })).toEqual({ definitions: 0, statements: 0, pdfs: 3 });
    expect(await purge({ scope: 'definitions', environment: 'production', dryRun: false })).toEqual({ definitions: 0, statements: 0, pdfs: 0 });
    expect(await purge({ scope: 'all', dryRun: true })).toEqual({ definitions: 1, statements: 2, pdfs: 2 });
    expect((await caches.getMembers(cacheKeys.reads(bob), ['read-0'])).values).toEqual(['v0']);
    expect(await purge({ scope: 'all', dryRun: false })).toEqual({ definitions: 1, statements: 2, pdfs: 2 });
    expect(await caches.get(cacheKeys.definitions(sandbox))).toBeNull();
    expect((await caches.getMembers(cacheKeys.reads(bob), ['read-0'])).values).toEqual([null]);
    expect(await caches.absences(cacheKeys.reads(bob), ['read-0'])).toEqual(['purged']);
    const purges = (await metrics.registry.getSingleMetric('statement_gateway_cache_purges_total')?.get())?.values.map(({ labels, value }) => [labels.scope, value]);
    expect(Object.fromEntries(purges ?? [])).toEqual({ definitions: 1, identity: 1, statement: 1, all: 1 });
  });

  it('leaves every key outside the caches alone: sessions, rate limits, idempotency records', async () => {
    const { caches, purge } = replicaOf(store);
    const others = [`sgw:session:{${randomUUID()}}`, `sgw:rate:${randomUUID()}`, `sgw:idem:{${randomUUID()}}`];
    for (const key of others) await caches.set(key, 'kept', 60_000);
    await purge({ scope: 'all', dryRun: false });
    for (const key of others) expect(await caches.get(key)).toBe('kept');
  });
});

describe('the notice of a purge', () => {
  it('reaches another replica\'s listeners in about a millisecond', async () => {
    const [one, other] = [redisStore(), redisStore()];
    // Pub/sub spans the whole server: other files' notices may arrive too.
    const heard = new Map<string, number>();
    other.onNotice((notice) => heard.set(notice, performance.now()), () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const latencies: number[] = [];
    for (let round = 0; round < 20; round++) {
      const notice = `{"definitions":[],"test":"${randomUUID()}"}`;
      const sent = performance.now();
      await one.announce(notice);
      while (!heard.has(notice)) await new Promise((resolve) => setImmediate(resolve));
      latencies.push(heard.get(notice)! - sent);
    }
    latencies.sort((a, b) => a - b);
    console.log(`purge notice to another replica: median ${latencies[10]!.toFixed(2)} ms, worst ${latencies[19]!.toFixed(2)} ms (20 notices, local Redis)`);
    expect(latencies[19]).toBeLessThan(1_000);
  });
});

describe('the cost of purging one identity', () => {
  it('with 1,000 cached reads: a few commands, whatever it holds, and no scan', async () => {
    const own = await ownRedis();
    await own.start();
    try {
      const store = redisStore(own.url);
      const { caches, purge, upstreams } = replicaOf(store);
      const scope = identityScope(upstreams.sandbox.cacheNamespace, 'heavy@example.com');
      const group = cacheKeys.reads(scope);
      const values = 'x'.repeat(2_000);
      for (let start = 0; start < 1_000; start += 100) {
        const entries = Array.from({ length: 100 }, (_, i) => ({ id: `read-${start + i}`, value: values }));
        await caches.putMembers(group, entries, 60_000, (await caches.getMembers(group, [])).generation, 1_000);
      }
      const seen: string[] = [];
      const monitor = await monitorRedis(Number(new URL(own.url).port), (args) => seen.push(String(args[0]).toLowerCase()));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      const counts = await purge({ scope: 'identity', environment: 'sandbox', uid: 'heavy@example.com', dryRun: false });
      const ms = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(counts).toEqual({ definitions: 0, statements: 1_000, pdfs: 0 });
      const sent = seen.filter((command) => command === 'evalsha' || command === 'eval' || command === 'publish');
      const byCommand = Object.entries(seen.reduce<Record<string, number>>((all, command) => ({ ...all, [command]: (all[command] ?? 0) + 1 }), {})).map(([command, n]) => `${command} ${n}`).join(', ');
      console.log(`purge of one identity holding 1,000 cached reads: ${ms.toFixed(1)} ms; ${sent.length} commands from the gateway (${sent.join(', ')}); inside Redis: ${byCommand}`);
      expect(seen.filter((command) => command === 'scan' || command === 'keys')).toEqual([]);
      expect(sent.length).toBeLessThanOrEqual(4);
      monitor.close();
    } finally {
      await own.stop();
    }
  }, 30_000);
});
