/**
 * Every Redis-backed store on a real Redis Cluster (three masters, test/support/redis-topologies),
 * through the gateway's own config parsing, client factory and store classes, two "replicas" each
 * with its own clients: each script, transaction, pipeline and multi-key command keeps to one slot
 * (Redis and ioredis refuse the others with CROSSSLOT, so a lost hash tag fails here), pub/sub
 * reaches the other replica, and the keys spread over more than one master. The stores are used
 * raw, not behind their fail-open wrappers, so no error is turned into a miss.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DefinitionsCache } from '../../src/cache/definitions-cache';
import { createRedisCacheStore } from '../../src/cache/redis-cache-store';
import { cacheKeys, UNKNOWN_GENERATION, type CacheStore } from '../../src/cache/cache-store';
import { identityScope } from '../../src/cache/scope';
import { loadConfig } from '../../src/config';
import { accountKeys, createRedisAccountStore } from '../../src/credentials/account-store';
import { createCredentialCipher } from '../../src/credentials/cipher';
import { createDerivedKeys } from '../../src/derived-keys';
import { ServiceAccountCredentials, type ServiceAccount } from '../../src/credentials/service-accounts';
import type { UpstreamCredential } from '../../src/upstream/credential';
import { createVerifiedCredentials } from '../../src/drop-in/verified-credentials';
import { createMetrics } from '../../src/observability/metrics';
import { createStoreHealth } from '../../src/observability/store-health';
import { createRedisAccountBackoff } from '../../src/protection/account-backoff';
import { createRedisRateLimitStore } from '../../src/protection/rate-limiter';
import { createRedisClient, pingRedis, waitForReady, type RedisClient } from '../../src/redis';
import { createRedisSessionStore } from '../../src/session/redis-session-store';
import { createSessionCache } from '../../src/session/session-cache';
import { Sessions, type ActiveSession } from '../../src/session/sessions';
import { upstreamTarget } from '../../src/upstream/target';
import { capturedLog } from '../support/captured-log';
import { startRedisCluster, type RedisCluster } from '../support/redis-topologies';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const { log } = capturedLog('silent');
const cipher = createCredentialCipher(randomBytes(32));
/** Both replicas' keys, derived from one CREDENTIAL_KEY as in a deployment. */
const slotKeys = createDerivedKeys(randomBytes(32));
const credential = (uid: string): UpstreamCredential => ({ accessToken: randomUUID(), client: randomUUID(), uid, expiry: Math.floor(Date.now() / 1000) + 3_600 });

let cluster: RedisCluster;
const opened: RedisClient[] = [];

interface Replica {
  readonly redis: RedisClient;
  readonly cacheSubscriber: RedisClient;
  readonly cache: CacheStore;
  readonly sessions: Sessions;
}

async function client(name: string): Promise<RedisClient> {
  const target = loadConfig({ REDIS_URL: cluster.url, CREDENTIAL_KEY: randomBytes(32).toString('base64') }).redis;
  if (!target) throw new Error('no target');
  const redis = createRedisClient({ target, name });
  opened.push(redis);
  expect(await waitForReady(redis, 5_000)).toBe(true);
  return redis;
}

async function replica(): Promise<Replica> {
  const redis = await client('store');
  const cacheSubscriber = await client('cache-subscriber');
  // A long life: in these tests only an invalidation message can drop a remembered session.
  const sessionCache = createSessionCache<ActiveSession>({
    ttlMs: 60_000, maxEntries: 1_000, clock: Date.now, redis, subscriber: await client('session-invalidations'),
    endOf: (session) => session.absoluteExpiresAt,
  });
  const sessions = new Sessions({ store: createRedisSessionStore(redis), cipher, idleMs: 600_000, absoluteMs: 3_600_000, cache: sessionCache, keys: slotKeys });
  return { redis, cacheSubscriber, cache: createRedisCacheStore({ redis, subscriber: cacheSubscriber }), sessions };
}

let a: Replica;
let b: Replica;

beforeAll(async () => {
  // Three masters without replicas: a lost master stays lost (the readiness test below).
  cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  [a, b] = await Promise.all([replica(), replica()]);
}, 60_000);

afterAll(async () => {
  for (const redis of opened) redis.disconnect();
  await cluster?.stop();
});

describe('the stores on a Redis Cluster', () => {
  it('connects through a redis+cluster:// REDIS_URL and is ready by its ping', async () => {
    expect(a.redis).toBeInstanceOf(Cluster);
    await expect(pingRedis(a.redis)).resolves.toBeUndefined();
    await expect(a.sessions.store.ping()).resolves.toBeUndefined();
    await expect(a.cache.ping()).resolves.toBeUndefined();
  });

  it('creates, resolves, rotates and ends sessions (HSET+PEXPIRE transaction, touch, compare-and-set scripts)', async () => {
    const made = await Promise.all(Array.from({ length: 24 }, (_, index) => a.sessions.create('sandbox', credential(`user${index}@example.com`))));
    for (const { id } of made) expect((await b.sessions.resolve(id)).status).toBe('active');
    const [first, second, third] = made;
    if (!first || !second || !third) throw new Error('no sessions');
    const resolved = await a.sessions.resolve(first.id);
    if (resolved.status !== 'active') throw new Error(resolved.status);
    expect(await a.sessions.rotate(resolved.session, credential(first.session.uid))).toBeDefined();
    // The stale credential neither rotates nor ends the session any more.
    expect(await b.sessions.rotate(first.session, credential(first.session.uid))).toBeUndefined();
    expect(await b.sessions.endIfCurrent(first.session)).toBe(false);
    expect(await b.sessions.endIfCurrent(second.session)).toBe(true);
    await b.sessions.end(third.session);
    expect((await a.sessions.resolve(second.id)).status).toBe('missing');
    expect((await a.sessions.resolve(third.id)).status).toBe('missing');
  });

  it('creates, caps, lists and takes one user\'s sessions on their slot, many at once (index scripts, the records\' pipeline)', async () => {
    // At once, and beside other users' sessions on other slots: auto-pipelining groups commands by
    // node, and a command of another slot in the group is refused (regression: a script called
    // with its number of keys first was grouped by the slot of that number).
    const uid = `capped-${randomUUID()}@example.com`;
    const made = await Promise.all(Array.from({ length: 14 }, (_, index) => a.sessions.create('sandbox', credential(index % 2 ? uid : `other${index}@example.com`))));
    const beyondCap = [...new Set(made.flatMap((session) => session.beyondCap))];
    expect(await Promise.all(beyondCap.map((key) => b.sessions.take(key)))).toEqual([]);
    // One login after another, each ending what it puts beyond the cap, as `login` does.
    const more: typeof made = [];
    const ended: Awaited<ReturnType<Sessions['take']>>[] = [];
    for (let index = 0; index < 6; index++) {
      const session = await b.sessions.create('sandbox', credential(uid));
      more.push(session);
      ended.push(...(await Promise.all(session.beyondCap.map((key) => a.sessions.take(key)))));
    }
    expect(ended).toHaveLength(3);
    for (const session of ended) expect(session?.uid).toBe(uid);
    const listed = await a.sessions.listed('sandbox', uid);
    expect(listed).toHaveLength(10);
    expect((await b.sessions.listed('sandbox', uid)).map((session) => session.key)).toEqual(listed.map((session) => session.key));
    const statuses = await Promise.all([...made, ...more].map(async ({ id }) => (await b.sessions.resolve(id)).status));
    expect(statuses.filter((status) => status === 'active')).toHaveLength(10 + 7);
  });

  it('drops a session remembered by one replica when another ends it (PUBLISH reaches every node\'s subscribers)', async () => {
    const { id, session } = await a.sessions.create('sandbox', credential('cached@example.com'));
    // Remembered once the invalidation channel is subscribed.
    const deadline = Date.now() + 5_000;
    let cached = false;
    while (!cached && Date.now() < deadline) {
      const resolved = await a.sessions.resolve(id);
      expect(resolved.status).toBe('active');
      cached = resolved.status === 'active' && resolved.cached === true;
      if (!cached) await sleep(50);
    }
    expect(cached).toBe(true);
    await b.sessions.end(session);
    let status = 'active';
    for (let attempt = 0; attempt < 40 && status === 'active'; attempt++) {
      await sleep(25);
      status = (await a.sessions.resolve(id)).status;
    }
    expect(status).toBe('missing');
  });

  it('counts rate limits in both windows of a key (one script) and resets them (one DEL of two keys)', async () => {
    const store = createRedisRateLimitStore(a.redis);
    const other = createRedisRateLimitStore(b.redis);
    for (let index = 0; index < 12; index++) {
      const key = `session:slot-test-${index}`;
      expect((await store.hit(key, 2, 60_000)).allowed).toBe(true);
      expect((await other.hit(key, 2, 60_000)).allowed).toBe(true);
      expect((await store.hit(key, 2, 60_000)).allowed).toBe(false);
      await other.reset(key, 60_000);
      expect((await store.hit(key, 2, 60_000)).allowed).toBe(true);
    }
  });

  it('backs off an account and remembers its known addresses', async () => {
    const backoff = createRedisAccountBackoff(a.redis);
    const key = `login-account:${randomUUID()}`;
    expect((await backoff.attempt(key, 2, 60_000, 900_000)).allowed).toBe(true);
    expect((await backoff.attempt(key, 2, 60_000, 900_000)).allowed).toBe(true);
    expect((await createRedisAccountBackoff(b.redis).attempt(key, 2, 60_000, 900_000)).allowed).toBe(false);
    await backoff.clear(key);
    expect((await backoff.attempt(key, 2, 60_000, 900_000)).allowed).toBe(true);
    await backoff.learn(`known:${key}`, 60_000);
    expect(await createRedisAccountBackoff(b.redis).knows(`known:${key}`)).toBe(true);
  });

  it('keeps a service account\'s credential and backoff (MGET, MULTI, scripts) and signs in once for both replicas (the lock)', async () => {
    const name = `slot-test-${randomUUID().slice(0, 8)}`;
    const store = createRedisAccountStore(a.redis);
    await store.recordFailure(name, { until: Date.now() + 1_000, failures: 1, code: 'UPSTREAM_UNAVAILABLE' }, 60_000);
    expect((await store.read(name)).backoff?.failures).toBe(1);
    await store.write(name, 'sealed-1', 60_000);
    expect(await createRedisAccountStore(b.redis).read(name)).toEqual({ sealed: 'sealed-1' });
    expect(await store.replace(name, 'sealed-1', 'sealed-2')).toBe(true);
    expect(await store.discard(name, 'sealed-1')).toBe(false);
    expect(await store.discard(name, 'sealed-2')).toBe(true);

    const account: ServiceAccount = { name: `${name}-shared`, apiKeySha256: randomBytes(32), email: 'svc@example.com', password: 'secret', environment: 'sandbox', requestsPerMinute: 600 };
    let signIns = 0;
    const credentials = (replicaOf: Replica) =>
      new ServiceAccountCredentials({
        store: createRedisAccountStore(replicaOf.redis), locks: replicaOf.cache, cipher, storeHealth: createStoreHealth('sessions', log), log, metrics: createMetrics(), lockMs: 5_000,
        signIn: async () => {
          signIns++;
          await sleep(200);
          return { ok: true, credential: credential(account.email) };
        },
      });
    const [one, two] = [credentials(a), credentials(b)];
    const leases = await Promise.all([one.lease(account), two.lease(account), one.lease(account), two.lease(account)]);
    expect(signIns).toBe(1);
    expect(new Set(leases.map((lease) => lease.sealed)).size).toBe(1);
    expect(await a.redis.exists(accountKeys.credential(account.name))).toBe(1);
  });

  it('remembers, checks and forgets verified drop-in credentials', async () => {
    const verified = createVerifiedCredentials(a.redis, { keys: slotKeys });
    const accepted = credential('front@example.com');
    await verified.remember('sandbox', accepted, Date.now());
    expect((await createVerifiedCredentials(b.redis, { keys: slotKeys }).check('sandbox', accepted))?.expiry).toBe(String(accepted.expiry));
    await verified.forget('sandbox', accepted);
    expect(await verified.check('sandbox', accepted)).toBeUndefined();
  });

  it('reads, writes, bounds and drops a cache group in one slot (pipelined MGET chunks, scripts over its members)', async () => {
    await a.cache.set('sgw:cache:{slot-test}:plain', 'value', 60_000);
    expect(await b.cache.get('sgw:cache:{slot-test}:plain')).toBe('value');
    for (let index = 0; index < 6; index++) {
      const group = cacheKeys.reads(identityScope('sandbox.slottest', `user${index}@example.com`));
      const ids = Array.from({ length: 40 }, (_, member) => `statement-${member}`);
      const { generation } = await a.cache.getMembers(group, ids);
      expect(generation).not.toBe(UNKNOWN_GENERATION);
      // 40 members, bound at 30: the 10 oldest go in the same scripts.
      await a.cache.putMembers(group, ids.map((id) => ({ id, value: `v-${id}`, aliases: [`alias-${id}`] })), 60_000, generation, 30);
      const read = await b.cache.getMembers(group, ids);
      expect(read.values.filter((value) => value !== null)).toHaveLength(30);
      expect(read.values[39]).toBe('v-statement-39');
      await b.cache.dropMembers(group, { ids: ['statement-39'], aliases: ['alias-statement-38'] });
      const afterSome = await a.cache.getMembers(group, ids);
      expect(afterSome.generation).not.toBe(read.generation);
      expect(afterSome.values.slice(36)).toEqual(['v-statement-36', 'v-statement-37', null, null]);
      await a.cache.dropMembers(group, 'all');
      expect((await b.cache.getMembers(group, ids)).values.every((value) => value === null)).toBe(true);
    }
  });

  it('hands a lock over between replicas, the release published to the waiting replica', async () => {
    const key = accountKeys.signInLock(`slot-test-${randomUUID()}`);
    const heard: string[] = [];
    b.cacheSubscriber.on('message', (_channel: string, message: string) => heard.push(message));
    expect(await a.cache.acquireLock(key, 5_000, 'token-a')).toBe('token-a');
    expect(await b.cache.acquireLock(key, 5_000, 'token-b')).toBeNull();
    const waited = b.cache.waitForRelease(key, 5_000);
    await sleep(300);
    await a.cache.releaseLock(key, 'token-a');
    await waited;
    expect(heard).toContain(key);
    expect(await b.cache.acquireLock(key, 5_000, 'token-b')).toBe('token-b');
  });

  it('asks the upstream once for concurrent definitions misses on both replicas (single flight)', async () => {
    const target = upstreamTarget('sandbox', `http://slot-test-${randomUUID()}.example`);
    let fetches = 0;
    const fetchFull = async () => {
      fetches++;
      await sleep(200);
      return { definitions: [{ identifier: 'fw2' }], errors: null };
    };
    const definitions = (replicaOf: Replica) => new DefinitionsCache({ store: replicaOf.cache, keys: slotKeys, metrics: createMetrics(), log, freshMs: 60_000, staleIfErrorMs: 60_000, lockMs: 5_000 });
    const [one, two] = [definitions(a), definitions(b)];
    const answers = await Promise.all([one.get(target, fetchFull), two.get(target, fetchFull), one.get(target, fetchFull), two.get(target, fetchFull)]);
    expect(fetches).toBe(1);
    for (const answer of answers) expect(answer.definitions).toEqual([{ identifier: 'fw2' }]);
  });

  it('spreads the keys over more than one master', async () => {
    if (!(a.redis instanceof Cluster)) throw new Error('not a cluster');
    const sizes = await Promise.all(a.redis.nodes('master').map((node) => node.dbsize()));
    expect(sizes).toHaveLength(3);
    expect(sizes.filter((size) => size > 0).length).toBeGreaterThan(1);
  });

  it('keeps the members a script reaches by name in the slot of the keys it declares (CLUSTER KEYSLOT)', async () => {
    // PUT_MEMBERS and DROP_MEMBERS build member keys from the group's prefix inside Lua: Redis
    // checks only declared keys across slots, so these must share the group's hash tag.
    const group = cacheKeys.pdfs(identityScope('production.slottest', 'odd{uid}@example.com'));
    const slot = await a.redis.cluster('KEYSLOT', `${group}#order`);
    for (const key of [`${group}#aliases`, `${group}#generation`, `${group}:{odd}`, `${group}:}`, `${group}:plain`]) {
      expect(await a.redis.cluster('KEYSLOT', key)).toBe(slot);
    }
    expect(await a.redis.cluster('KEYSLOT', accountKeys.backoff('x'))).toBe(await a.redis.cluster('KEYSLOT', accountKeys.credential('x')));
  });
});

describe('readiness on a Redis Cluster', () => {
  // Last: it leaves the cluster without a master for a third of its slots.
  it('reports the store not ready once a master is lost, though the other masters still answer', async () => {
    const [lost] = cluster.ports;
    if (lost === undefined) throw new Error('no port');
    await cluster.kill(lost);
    const deadline = Date.now() + 10_000;
    let failure: unknown;
    while (failure === undefined && Date.now() < deadline) {
      const started = Date.now();
      failure = await pingRedis(a.redis).then(() => undefined, (error: unknown) => error ?? 'failed');
      // Neither a lost node nor a failing cluster makes the check wait past the command timeout.
      expect(Date.now() - started).toBeLessThan(1_500);
      if (failure === undefined) await sleep(100);
    }
    expect(failure).toBeDefined();
    // And it stays so while those slots have no master (not only while the lost node is known).
    for (let check = 0; check < 5; check++) {
      await sleep(200);
      await expect(pingRedis(a.redis)).rejects.toThrow();
    }
    // A plain PING to any node left would still have said ready.
    const survivor = createRedisClient({ target: { topology: 'single', url: `redis://127.0.0.1:${cluster.ports[1] ?? 0}` } });
    opened.push(survivor);
    expect(await waitForReady(survivor, 2_000)).toBe(true);
    expect(await survivor.ping()).toBe('PONG');
  });
});

describe('nothing scans the keyspace', () => {
  it('has no KEYS, SCAN or scanStream call in src/', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
      });
    const offenders = files(join(__dirname, '..', '..', 'src')).filter((path) => {
      const text = readFileSync(path, 'utf8');
      return /\.(keys|scan|scanStream|scanBuffer)\(\s*['"`]|\.scanStream\(|redis\.call\(\s*['"](KEYS|SCAN)['"]/i.test(text);
    });
    expect(offenders).toEqual([]);
  });
});
