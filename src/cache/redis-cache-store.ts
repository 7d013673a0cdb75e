/**
 * The cache store in Redis (`CACHE_REDIS_URL`, else `REDIS_URL`), shared by every replica.
 * A group is `<group>:<id>` members, a sorted set of member ids by last write (`<group>#order`)
 * and a hash of aliases (`<group>#aliases`), all under the group's hash tag and all with a TTL:
 * dropping a group or some of its members is one script over its own index, never a scan of the
 * keyspace, and a write past the group's bound drops its oldest members in the same script.
 * Lock releases are published, so waiters of other replicas wake at once instead of polling.
 */
import { pingRedis, type RedisClient } from '../redis';
import { createWaiters } from './waiters';
import { UNKNOWN_GENERATION, type CacheStore, type GroupEntry, type GroupSelection } from './cache-store';

// Members of a group are ordered by their last write (a sorted set scored by a write sequence);
// each member's aliases are also kept under `\0<id>` in the aliases hash, so that dropping the
// member (evicted or invalidated) takes its aliases with it and the hash stays bounded.
const FORGET = `
local function forget(prefix, id)
  local removed = redis.call('DEL', prefix .. id)
  redis.call('ZREM', KEYS[1], id)
  local list = redis.call('HGET', KEYS[2], '\\0' .. id)
  if list then
    for _, alias in ipairs(cjson.decode(list)) do
      if redis.call('HGET', KEYS[2], alias) == id then redis.call('HDEL', KEYS[2], alias) end
    end
    redis.call('HDEL', KEYS[2], '\\0' .. id)
  end
  return removed
end
`;

// KEYS: order, aliases, generation. ARGV: member prefix, TTL, expected generation, most members
// kept, then per member: id, value, alias count, aliases. Nothing is written
// if a drop changed the generation; past the bound the oldest members are dropped.
const PUT_MEMBERS = `${FORGET}
if (redis.call('GET', KEYS[3]) or '0') ~= ARGV[3] then return 0 end
local prefix, ttl, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local sequence = tonumber(newest[2] or '0')
local i, written = 5, 0
while i <= #ARGV do
  local id, n = ARGV[i], tonumber(ARGV[i + 2])
  redis.call('SET', prefix .. id, ARGV[i + 1], 'PX', ttl)
  sequence = sequence + 1
  redis.call('ZADD', KEYS[1], sequence, id)
  if n > 0 then
    local aliases = {}
    for j = 1, n do
      aliases[j] = ARGV[i + 2 + j]
      redis.call('HSET', KEYS[2], aliases[j], id)
    end
    redis.call('HSET', KEYS[2], '\\0' .. id, cjson.encode(aliases))
  end
  written = written + 1
  i = i + 3 + n
end
local over = redis.call('ZCARD', KEYS[1]) - max
if over > 0 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, over - 1)) do forget(prefix, id) end
end
redis.call('PEXPIRE', KEYS[1], ttl)
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ttl) end
return written
`;

// KEYS: order, aliases, generation. ARGV: member prefix, 'all' or 'some', id count, ids, aliases.
const DROP_MEMBERS = `${FORGET}
redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], 86400000)
local prefix = ARGV[1]
if ARGV[2] == 'all' then
  local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
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
for i = 4, 3 + n do dropped = dropped + forget(prefix, ARGV[i]) end
for i = 4 + n, #ARGV do
  local id = redis.call('HGET', KEYS[2], ARGV[i])
  if id then
    dropped = dropped + forget(prefix, id)
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
  readonly redis: RedisClient;
  /** A second connection for lock-release messages (a subscribed connection runs no commands). */
  readonly subscriber: RedisClient;
}

export function createRedisCacheStore({ redis, subscriber }: RedisCacheStoreOptions): CacheStore {
  if (!('sgwCacheDropMembers' in redis)) {
    redis.defineCommand('sgwCachePutMembers', { numberOfKeys: 3, lua: PUT_MEMBERS });
    redis.defineCommand('sgwCacheDropMembers', { numberOfKeys: 3, lua: DROP_MEMBERS });
    redis.defineCommand('sgwCacheReleaseLock', { numberOfKeys: 1, lua: RELEASE_LOCK });
  }
  const commands = redis as unknown as RedisClient & CacheCommands;
  // Not `#index`: that was a plain set of an unbounded group (a key of that name, left by an
  // older gateway, expires by itself).
  const index = (group: string) => `${group}#order`;
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
      // Single commands, in this order on one connection, that the client's auto-pipelining sends
      // with the other requests' commands of the same tick: one socket write for many lookups.
      const [current, , ...replies] = await Promise.all([commands.get(generation(group)), commands.touch(index(group), aliases(group)), ...chunks.map((keys) => commands.mget(...keys))]);
      return { values: replies.flat(), generation: current ?? '0' };
    },
    async putMembers(group, entries: readonly GroupEntry[], ttlMs, expected, maxMembers) {
      if (entries.length === 0 || expected === UNKNOWN_GENERATION) return;
      // Members of one group share a TTL: the index lives as long as the newest member.
      for (let start = 0; start < entries.length; start += MEMBERS_PER_COMMAND) {
        const args: (string | number)[] = [`${group}:`, Math.max(1, Math.round(ttlMs)), expected, Math.max(1, maxMembers)];
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
    ping() {
      return pingRedis(redis);
    },
    close() {
      waiters.wakeAll();
      return Promise.resolve();
    },
  };
}
