/**
 * Idempotency records in the session store's Redis, one Lua script per operation so that two
 * replicas claiming the same key at once cannot both win: the claim reads the record and writes
 * it in one step (SET NX in effect). A record is a hash `sgw:session:idem:{<identity>}:<key>`
 * (fingerprint, sealed answer) beside the identity's index, a sorted set of its keys by expiry
 * that bounds how many it holds; both share the identity's hash tag (one Cluster slot). Every
 * write sets a TTL. Errors are thrown: the plugin fails closed.
 */
import type { RedisClient } from '../redis';
import type { IdempotencyStore, RecordName } from './idempotency-store';

// KEYS: record, index. ARGV: fingerprint, now, pendingMs, maxPerIdentity, ttlMs, key name.
const CLAIM = `
local found = redis.call('HMGET', KEYS[1], 'fp', 'ans')
if found[1] then
  if found[2] then return {'done', found[1], found[2]} end
  return {'pending', found[1]}
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return {'full'} end
redis.call('HSET', KEYS[1], 'fp', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]) + tonumber(ARGV[5]), ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {'claimed'}
`;

// KEYS: record. ARGV: fingerprint, answer, ttlMs.
const COMPLETE = `
if redis.call('HGET', KEYS[1], 'fp') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'ans', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

// KEYS: record, index. ARGV: fingerprint, key name.
const RELEASE = `
local found = redis.call('HMGET', KEYS[1], 'fp', 'ans')
if found[1] ~= ARGV[1] or found[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
`;

interface IdempotencyCommands {
  sgwIdempotencyClaim(record: string, index: string, fingerprint: string, now: number, pendingMs: number, max: number, ttlMs: number, key: string): Promise<string[]>;
  sgwIdempotencyComplete(record: string, fingerprint: string, answer: string, ttlMs: number): Promise<number>;
  sgwIdempotencyRelease(record: string, index: string, fingerprint: string, key: string): Promise<number>;
}

const indexKey = (name: RecordName) => `sgw:session:idem:{${name.identity}}`;
const recordKey = (name: RecordName) => `${indexKey(name)}:${name.key}`;

export function createRedisIdempotencyStore(redis: RedisClient): IdempotencyStore {
  if (!('sgwIdempotencyClaim' in redis)) {
    redis.defineCommand('sgwIdempotencyClaim', { numberOfKeys: 2, lua: CLAIM });
    redis.defineCommand('sgwIdempotencyComplete', { numberOfKeys: 1, lua: COMPLETE });
    redis.defineCommand('sgwIdempotencyRelease', { numberOfKeys: 2, lua: RELEASE });
  }
  const commands = redis as unknown as RedisClient & IdempotencyCommands;
  return {
    async claim(name, fingerprint, { pendingMs, ttlMs, maxPerIdentity, now }) {
      const [status, found = '', answer = ''] = await commands.sgwIdempotencyClaim(recordKey(name), indexKey(name), fingerprint, now, pendingMs, maxPerIdentity, ttlMs, name.key);
      if (status === 'done') return { status, fingerprint: found, answer };
      if (status === 'pending') return { status, fingerprint: found };
      if (status === 'full' || status === 'claimed') return { status };
      throw new Error(`unexpected idempotency claim reply ${String(status)}`);
    },
    async complete(name, fingerprint, answer, ttlMs) {
      await commands.sgwIdempotencyComplete(recordKey(name), fingerprint, answer, ttlMs);
    },
    async release(name, fingerprint) {
      await commands.sgwIdempotencyRelease(recordKey(name), indexKey(name), fingerprint, name.key);
    },
  };
}
