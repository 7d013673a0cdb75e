import { pingRedis, type RedisClient } from '../redis';
import { replicaAcks } from './replica-acks';
import { defineIndexCommands, defineSessionScript, LUA_FIELDS, LUA_RECORD, recordOf, redisSessionIndex, runSessionScript } from './redis-session-index';
import type { IndexedSessionStore } from './session-index';
import type { PeekResult, SessionRecord, TouchResult } from './session-store';

// Every script takes the session's key and, for a session with a user (session-index.ts), its
// user's index as KEYS[2] (one hash tag: one Cluster slot); the index entry moves with the session.
// ARGV values are the app's epoch ms as strings: Lua prints big numbers as floats (1.7e+12), so
// sums are formatted with %.0f.

// A new session and its index entry; then the index's dead entries go, it lives as long as its
// longest-lived session, and the keys beyond the cap (ARGV[3]), least recently used first, are
// answered for the caller to end (each with its own credential, signed out upstream).
const CREATE = `
local now = tonumber(ARGV[1])
local ttl = math.max(1, math.min(tonumber(ARGV[2]), tonumber(ARGV[4]) - now))
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('PEXPIRE', KEYS[1], ttl)
if not KEYS[2] then return {} end
redis.call('HSET', KEYS[2], KEYS[1], ARGV[1] .. ':' .. string.format('%.0f', now + ttl))
local entries = redis.call('HGETALL', KEYS[2])
local live, latest = {}, now + ttl
for i = 1, #entries, 2 do
  local seen, ends = string.match(entries[i + 1], '^(%d+):(%d+)$')
  if not seen or tonumber(ends) <= now then
    redis.call('HDEL', KEYS[2], entries[i])
  else
    live[#live + 1] = { entries[i], tonumber(seen) }
    latest = math.max(latest, tonumber(ends))
  end
end
redis.call('PEXPIRE', KEYS[2], string.format('%.0f', latest - now))
local over = #live - tonumber(ARGV[3])
local beyond = {}
if over > 0 then
  table.sort(live, function(a, b) return a[2] < b[2] end)
  for _, entry in ipairs(live) do
    if #beyond >= over then break end
    if entry[1] ~= KEYS[1] then beyond[#beyond + 1] = entry[1] end
  end
end
return beyond
`;

// Touch reads a session and moves its expiry in one round trip and atomically: the idle window,
// capped by the absolute end; past the absolute end it is deleted. Its index entry (set even if
// lost: the record is the authority) records the use, and the index outlives the session.
const TOUCH = `
local v = redis.call('HMGET', KEYS[1], ${LUA_FIELDS})
if not v[1] then return nil end
local now = tonumber(ARGV[2])
local remaining = tonumber(v[5]) - now
if remaining <= 0 then
  redis.call('DEL', KEYS[1])
  if KEYS[2] then redis.call('HDEL', KEYS[2], KEYS[1]) end
  return {'expired'}
end
local ttl = math.min(tonumber(ARGV[1]), remaining)
redis.call('PEXPIRE', KEYS[1], ttl)
if KEYS[2] then
  redis.call('HSET', KEYS[2], KEYS[1], ARGV[2] .. ':' .. string.format('%.0f', now + ttl))
  if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
end
return {'active', ${LUA_RECORD}}
`;

// The same read without moving the expiry, with the milliseconds it has left.
const PEEK = `
local v = redis.call('HMGET', KEYS[1], ${LUA_FIELDS})
if not v[1] then return nil end
if tonumber(v[5]) <= tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  if KEYS[2] then redis.call('HDEL', KEYS[2], KEYS[1]) end
  return {'expired'}
end
return {'active', ${LUA_RECORD}, tostring(redis.call('PTTL', KEYS[1]))}
`;

const REPLACE_CREDENTIAL = `
if redis.call('HGET', KEYS[1], 'cred') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'cred', ARGV[2])
  return 1
end
return 0
`;

const DELETE_IF_CREDENTIAL = `
if redis.call('HGET', KEYS[1], 'cred') == ARGV[1] then
  if KEYS[2] then redis.call('HDEL', KEYS[2], KEYS[1]) end
  return redis.call('DEL', KEYS[1])
end
return 0
`;

interface SessionCommands {
  sgwSessionReplaceCredential(key: string, expected: string, next: string): Promise<number>;
}

/** A record as a new session hash's fields and values (absent fields are not written). */
function hashFields(record: SessionRecord): string[] {
  const fields = ['uid', record.uid, 'env', record.environment, 'cred', record.credential, 'created', String(record.createdAt), 'abs', String(record.absoluteExpiresAt)];
  if (record.userAgent) fields.push('ua', record.userAgent);
  if (record.listingMac) fields.push('lm', record.listingMac);
  return fields;
}

/**
 * How long a new session waits for a replica's acknowledgement. A healthy replica answers in well
 * under a millisecond (docs/scaling.md: a few hundredths of a millisecond at the median); the bound
 * matters only while a replica is down or far behind, and then once per quiet period.
 */
const REPLICA_ACK_MS = 100;

export interface RedisSessionStoreOptions {
  /**
   * After writing a new session, wait up to this long for a replica to acknowledge it (`WAIT 1`),
   * so that a primary lost right after a login does not take the session with it. 0: never wait.
   * Only where the topology has replicas (replica-acks.ts).
   */
  readonly replicaAckMs?: number;
}

/**
 * `WAIT 1 <ms>` after a write of `key`: how many replicas acknowledged it (0 when none did in
 * time, or the wait failed: the write itself succeeded, so the session is kept all the same). WAIT
 * names no key: a pipeline with a read of `key` sends it over the connection that made the write,
 * to the primary that holds the key, also on a Cluster.
 */
async function replicasAcknowledging(redis: RedisClient, key: string, waitMs: number): Promise<number> {
  try {
    const replies = await redis.pipeline().pttl(key).wait(1, waitMs).exec();
    const [error, replicas] = replies?.[1] ?? [];
    return error ? 0 : Number(replicas);
  } catch {
    return 0;
  }
}

/**
 * Sessions in Redis (`sgw:session:{<user>}:<hash of the cookie>`, or `sgw:session:<hash of the id>`
 * for those made before indexes), and their users' indexes, shared by every replica.
 */
export function createRedisSessionStore(redis: RedisClient, options: RedisSessionStoreOptions = {}): IndexedSessionStore {
  if (!('sgwSessionCreate' in redis)) {
    defineSessionScript(redis, 'sgwSessionCreate', CREATE);
    defineSessionScript(redis, 'sgwSessionTouch', TOUCH);
    defineSessionScript(redis, 'sgwSessionPeek', PEEK);
    redis.defineCommand('sgwSessionReplaceCredential', { numberOfKeys: 1, lua: REPLACE_CREDENTIAL });
    defineSessionScript(redis, 'sgwSessionDeleteIfCredential', DELETE_IF_CREDENTIAL);
    defineIndexCommands(redis);
  }
  const commands = redis as unknown as RedisClient & SessionCommands;
  const acks = replicaAcks(redis, options.replicaAckMs ?? REPLICA_ACK_MS);
  return {
    kind: 'redis',
    ...redisSessionIndex(redis),
    async create(key, record, idleMs, maxPerUser = Number.MAX_SAFE_INTEGER) {
      const beyond = await runSessionScript<string[]>(redis, 'sgwSessionCreate', key, record.createdAt, idleMs, maxPerUser, record.absoluteExpiresAt, ...hashFields(record));
      const waitMs = acks.waitMs();
      if (waitMs > 0) acks.acknowledged(await replicasAcknowledging(commands, key, waitMs));
      return beyond;
    },
    async touch(key, idleMs, now): Promise<TouchResult> {
      const reply = await runSessionScript<string[] | null>(redis, 'sgwSessionTouch', key, idleMs, now);
      if (!reply) return { status: 'missing' };
      if (reply[0] === 'expired') return { status: 'expired' };
      const record = recordOf(reply);
      return record ? { status: 'active', record } : { status: 'missing' };
    },
    async peek(key, now): Promise<PeekResult> {
      const reply = await runSessionScript<string[] | null>(redis, 'sgwSessionPeek', key, now);
      if (!reply) return { status: 'missing' };
      if (reply[0] === 'expired') return { status: 'expired' };
      const record = recordOf(reply);
      const left = Number(reply[8]);
      return record && left > 0 ? { status: 'active', record, idleExpiresAt: now + left } : { status: 'missing' };
    },
    async replaceCredential(key, expected, next) {
      return (await commands.sgwSessionReplaceCredential(key, expected, next)) === 1;
    },
    async delete(key) {
      await runSessionScript(redis, 'sgwSessionTake', key);
    },
    async deleteIfCredential(key, expected) {
      return (await runSessionScript<number>(redis, 'sgwSessionDeleteIfCredential', key, expected)) === 1;
    },
    ping() {
      return pingRedis(redis);
    },
  };
}
