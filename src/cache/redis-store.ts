/**
 * The cache store in Redis (`CACHE_REDIS_URL`, else `REDIS_URL`), shared by every replica.
 * A group is `<group>:<id>` members, a set of member ids (`<group>#index`) and a hash of aliases
 * (`<group>#aliases`), all under the group's hash tag and all with a TTL: dropping a group or
 * some of its members is one script over its own index, never a scan of the keyspace.
 * Lock releases are published, so waiters of other replicas wake at once instead of polling.
 */
import type { Redis } from 'ioredis';
import { createWaiters } from './waiters';
import { UNKNOWN_GENERATION, type CacheStore, type GroupEntry, type GroupSelection } from './store';

// KEYS: index, aliases, generation. ARGV: member prefix, TTL, expected generation, then per
// member: id, value, alias count, aliases. Nothing is written if a drop changed the generation.
const PUT_MEMBERS = `
if (redis.call('GET', KEYS[3]) or '0') ~= ARGV[3] then return 0 end
local ttl = tonumber(ARGV[2])
local ids = {}
local i = 4
while i <= #ARGV do
  local id, n = ARGV[i], tonumber(ARGV[i + 2])
  redis.call('SET', ARGV[1] .. id, ARGV[i + 1], 'PX', ttl)
  for j = 1, n do redis.call('HSET', KEYS[2], ARGV[i + 2 + j], id) end
  ids[#ids + 1] = id
  i = i + 3 + n
end
for k = 1, #ids, 500 do redis.call('SADD', KEYS[1], unpack(ids, k, math.min(k + 499, #ids))) end
redis.call('PEXPIRE', KEYS[1], ttl)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ttl) end
return #ids
`;

// KEYS: index, aliases, generation. ARGV: member prefix, 'all' or 'some', id count, ids, aliases.
const DROP_MEMBERS = `
redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], 86400000)
local prefix = ARGV[1]
if ARGV[2] == 'all' then
  local ids = redis.call('SMEMBERS', KEYS[1])
  for i = 1, #ids, 500 do
    local batch = {}
    for j = i, math.min(i + 499, #ids) do batch[#batch + 1] = prefix .. ids[j] end
    redis.call('DEL', unpack(batch))
  end
  redis.call('DEL', KEYS[1], KEYS[2])
  return #ids
end
local n = tonumber(ARGV[3])
local dropped = 0
local function drop(id)
  dropped = dropped + redis.call('DEL', prefix .. id)
  redis.call('SREM', KEYS[1], id)
end
for i = 4, 3 + n do drop(ARGV[i]) end
for i = 4 + n, #ARGV do
  local id = redis.call('HGET', KEYS[2], ARGV[i])
  if id then
    drop(id)
    redis.call('HDEL', KEYS[2], ARGV[i])
  end
end
return dropped
`;

const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], KEYS[1])
  return 1
end
return 0
`;

/** Where lock releases are announced (the message is the lock's key). */
const RELEASES_CHANNEL = 'sgw:cache:lock-released';
/** Members per read or write command: keeps each reply and script well under the timeout. */
const MEMBERS_PER_COMMAND = 16;
/** Waiters re-check the lock this often in case a release message was missed. */
const RECHECK_MS = 200;

interface CacheCommands {
  sgwCachePutMembers(index: string, aliases: string, generation: string, ...rest: (string | number)[]): Promise<number>;
  sgwCacheDropMembers(index: string, aliases: string, generation: string, prefix: string, mode: string, count: number, ...rest: string[]): Promise<number>;
  sgwCacheReleaseLock(key: string, token: string, channel: string): Promise<number>;
}

export interface RedisCacheStoreOptions {
  readonly redis: Redis;
  /** A second connection for lock-release messages (a subscribed connection runs no commands). */
  readonly subscriber: Redis;
}

export function createRedisCacheStore({ redis, subscriber }: RedisCacheStoreOptions): CacheStore {
  if (!('sgwCacheDropMembers' in redis)) {
    redis.defineCommand('sgwCachePutMembers', { numberOfKeys: 3, lua: PUT_MEMBERS });
    redis.defineCommand('sgwCacheDropMembers', { numberOfKeys: 3, lua: DROP_MEMBERS });
    redis.defineCommand('sgwCacheReleaseLock', { numberOfKeys: 1, lua: RELEASE_LOCK });
  }
  const commands = redis as unknown as Redis & CacheCommands;
  const index = (group: string) => `${group}#index`;
  const aliases = (group: string) => `${group}#aliases`;
  const generation = (group: string) => `${group}#generation`;
  const member = (group: string, id: string) => `${group}:${id}`;

  const waiters = createWaiters();
  let subscribed: Promise<unknown> | undefined;
  subscriber.on('message', (channel: string, key: string) => {
    if (channel === RELEASES_CHANNEL) waiters.wake(key);
  });
  // Resubscribe after a reconnection; a failed subscription is retried by the next waiter.
  subscriber.on('ready', () => {
    subscribed = subscriber.subscribe(RELEASES_CHANNEL).catch(() => (subscribed = undefined));
  });
  const subscribe = () => (subscribed ??= subscriber.subscribe(RELEASES_CHANNEL).catch(() => (subscribed = undefined)));


  return {
    kind: 'redis',
    async get(key) {
      return commands.get(key);
    },
    async set(key, value, ttlMs) {
      await commands.set(key, value, 'PX', Math.max(1, ttlMs));
    },
    async getMembers(group, ids) {
      // Chunks of a few members: a page of large PDFs in one reply would outlast the command
      // timeout. Each chunk also touches the group's index, aliases and generation, so that an
      // evicting Redis (allkeys-lru) drops them no sooner than the members still being read;
      // an index evicted before its members would let a drop miss them.
      const chunks: string[][] = [];
      for (let start = 0; start < ids.length; start += MEMBERS_PER_COMMAND) chunks.push(ids.slice(start, start + MEMBERS_PER_COMMAND).map((id) => member(group, id)));
      const pipeline = commands.pipeline().get(generation(group)).touch(index(group), aliases(group));
      for (const keys of chunks) pipeline.mget(...keys);
      const replies = (await pipeline.exec()) ?? [];
      const failure = replies.find(([error]) => error)?.[0];
      if (failure || replies.length !== 2 + chunks.length) throw failure ?? new Error('cache read aborted');
      const values = replies.slice(2).flatMap(([, reply]) => reply as (string | null)[]);
      return { values, generation: (replies[0]?.[1] as string | null) ?? '0' };
    },
    async putMembers(group, entries: readonly GroupEntry[], ttlMs, expected) {
      if (entries.length === 0 || expected === UNKNOWN_GENERATION) return;
      // Members of one group share a TTL: the index lives as long as the newest member.
      for (let start = 0; start < entries.length; start += MEMBERS_PER_COMMAND) {
        const args: (string | number)[] = [`${group}:`, Math.max(1, Math.round(ttlMs)), expected];
        for (const entry of entries.slice(start, start + MEMBERS_PER_COMMAND)) args.push(entry.id, entry.value, entry.aliases?.length ?? 0, ...(entry.aliases ?? []));
        await commands.sgwCachePutMembers(index(group), aliases(group), generation(group), ...args);
      }
    },
    async dropMembers(group, selection: GroupSelection) {
      const prefix = `${group}:`;
      const keys = [index(group), aliases(group), generation(group)] as const;
      if (selection === 'all') {
        await commands.sgwCacheDropMembers(...keys, prefix, 'all', 0);
        return;
      }
      await commands.sgwCacheDropMembers(...keys, prefix, 'some', selection.ids.length, ...selection.ids, ...selection.aliases);
    },
    async acquireLock(key, ttlMs, token) {
      const reply = await commands.set(key, token, 'PX', Math.max(1, ttlMs), 'NX');
      return reply === 'OK' ? token : null;
    },
    async releaseLock(key, token) {
      await commands.sgwCacheReleaseLock(key, token, RELEASES_CHANNEL);
    },
    async waitForRelease(key, timeoutMs) {
      await Promise.race([subscribe(), new Promise((resolve) => setTimeout(resolve, RECHECK_MS))]);
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if ((await commands.exists(key)) === 0) return;
        await waiters.wait(key, Math.min(RECHECK_MS, deadline - Date.now()));
      }
    },
    async ping() {
      await commands.ping();
    },
    close() {
      waiters.wakeAll();
      return Promise.resolve();
    },
  };
}
