/**
 * Idempotency records in the session store's Redis, one Lua script per operation so that two
 * replicas claiming the same key at once cannot both win: the claim reads the record and writes
 * it in one step (SET NX in effect). A record is a hash `sgw:session:idem:{<identity>}:<key>`
 * (fingerprint, lease, sealed answer) beside the identity's index, a sorted set of its keys by
 * expiry that bounds how many it holds, and its sizes, a hash of each kept answer's bytes and
 * their sum (`#bytes`: names are base64url, so it meets no key); all three share the identity's
 * hash tag (one Cluster slot). Every write sets a TTL. Errors are thrown: the plugin fails closed.
 */
import type { RedisClient } from '../redis';
import type { ClaimOutcome, CompleteOutcome, IdempotencyStore, RecordName } from './idempotency-store';

// KEYS: record, index, sizes. ARGV: fingerprint, now, leaseUntil, maxPerIdentity, ttlMs, key name, keepUntil, maxBytes.
// The expired keys' bytes are given back before the bound is checked; an identity with no key
// left has no bytes either (its sizes go, so no drift can outlive the keys).
const CLAIM = `
local found = redis.call('HMGET', KEYS[1], 'fp', 'ans', 'lease')
if found[1] then
  if found[2] then return {'done', found[1], found[2]} end
  -- A claim made before leases (no 'lease') holds until its record expires, as it did then.
  if not found[3] or tonumber(found[3]) > tonumber(ARGV[2]) then return {'pending', found[1]} end
  return {'orphaned', found[1]}
end
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
if #gone > 0 then
  local sizes = redis.call('HMGET', KEYS[3], unpack(gone))
  local freed = 0
  for i = 1, #gone do freed = freed + tonumber(sizes[i] or '0') end
  redis.call('HDEL', KEYS[3], unpack(gone))
  if freed > 0 then redis.call('HINCRBY', KEYS[3], '#bytes', -freed) end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
end
local count = redis.call('ZCARD', KEYS[2])
if count == 0 then redis.call('DEL', KEYS[3]) end
if count >= tonumber(ARGV[4]) or tonumber(redis.call('HGET', KEYS[3], '#bytes') or '0') >= tonumber(ARGV[8]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'full', tostring(tonumber(oldest[2]) - tonumber(ARGV[2]))}
end
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'lease', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[7], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {'claimed'}
`;

// KEYS: record. ARGV: fingerprint, leaseUntil.
const RENEW = `
local found = redis.call('HMGET', KEYS[1], 'fp', 'ans')
if found[1] ~= ARGV[1] or found[2] then return 0 end
redis.call('HSET', KEYS[1], 'lease', ARGV[2])
return 1
`;

// KEYS: record, index, sizes. ARGV: fingerprint, answer, ttlMs, now, keepUntil, key name, orphanedOnly.
const COMPLETE = `
local found = redis.call('HMGET', KEYS[1], 'fp', 'ans', 'lease')
if found[1] ~= ARGV[1] then return {'gone'} end
if found[2] then return {'kept', found[2]} end
if ARGV[7] == '1' and (not found[3] or tonumber(found[3]) > tonumber(ARGV[4])) then return {'pending'} end
redis.call('HSET', KEYS[1], 'ans', ARGV[2])
redis.call('HDEL', KEYS[1], 'lease')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local size = string.len(ARGV[2])
local before = tonumber(redis.call('HGET', KEYS[3], ARGV[6]) or '0')
redis.call('HSET', KEYS[3], ARGV[6], size)
redis.call('HINCRBY', KEYS[3], '#bytes', size - before)
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return {'stored'}
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
  sgwIdempotencyClaim(record: string, index: string, sizes: string, fingerprint: string, now: number, leaseUntil: number, max: number, ttlMs: number, key: string, keepUntil: number, maxBytes: number): Promise<string[]>;
  sgwIdempotencyRenew(record: string, fingerprint: string, leaseUntil: number): Promise<number>;
  sgwIdempotencyComplete(record: string, index: string, sizes: string, fingerprint: string, answer: string, ttlMs: number, now: number, keepUntil: number, key: string, orphanedOnly: string): Promise<string[]>;
  sgwIdempotencyRelease(record: string, index: string, fingerprint: string, key: string): Promise<number>;
}

const indexKey = (name: RecordName) => `sgw:session:idem:{${name.identity}}`;
const sizesKey = (name: RecordName) => `${indexKey(name)}:sizes`;
const recordKey = (name: RecordName) => `${indexKey(name)}:${name.key}`;

function claimOutcome([status, found = '', answer = '']: string[]): ClaimOutcome {
  if (status === 'done') return { status, fingerprint: found, answer };
  if (status === 'pending' || status === 'orphaned') return { status, fingerprint: found };
  if (status === 'full') return { status, retryAfterMs: Number(found) };
  if (status === 'claimed') return { status };
  throw new Error(`unexpected idempotency claim reply ${String(status)}`);
}

function completeOutcome([status, answer = '']: string[]): CompleteOutcome {
  if (status === 'kept') return { status, answer };
  if (status === 'stored' || status === 'pending' || status === 'gone') return { status };
  throw new Error(`unexpected idempotency completion reply ${String(status)}`);
}

export function createRedisIdempotencyStore(redis: RedisClient): IdempotencyStore {
  if (!('sgwIdempotencyClaim' in redis)) {
    redis.defineCommand('sgwIdempotencyClaim', { numberOfKeys: 3, lua: CLAIM });
    redis.defineCommand('sgwIdempotencyRenew', { numberOfKeys: 1, lua: RENEW });
    redis.defineCommand('sgwIdempotencyComplete', { numberOfKeys: 3, lua: COMPLETE });
    redis.defineCommand('sgwIdempotencyRelease', { numberOfKeys: 2, lua: RELEASE });
  }
  const commands = redis as unknown as RedisClient & IdempotencyCommands;
  return {
    async claim(name, fingerprint, { leaseMs, ttlMs, maxPerIdentity, maxBytes, now }) {
      return claimOutcome(await commands.sgwIdempotencyClaim(recordKey(name), indexKey(name), sizesKey(name), fingerprint, now, now + leaseMs, maxPerIdentity, ttlMs, name.key, now + ttlMs, maxBytes));
    },
    async renew(name, fingerprint, leaseUntil) {
      return (await commands.sgwIdempotencyRenew(recordKey(name), fingerprint, leaseUntil)) === 1;
    },
    async complete(name, fingerprint, answer, { ttlMs, now, orphanedOnly = false }) {
      return completeOutcome(await commands.sgwIdempotencyComplete(recordKey(name), indexKey(name), sizesKey(name), fingerprint, answer, ttlMs, now, now + ttlMs, name.key, orphanedOnly ? '1' : '0'));
    },
    async release(name, fingerprint) {
      await commands.sgwIdempotencyRelease(recordKey(name), indexKey(name), fingerprint, name.key);
    },
    async find(name) {
      const [fingerprint, answer, lease] = await redis.hmget(recordKey(name), 'fp', 'ans', 'lease');
      if (typeof fingerprint !== 'string') return undefined;
      // A claim made before leases holds until its record expires, as it did then.
      return { fingerprint, answer: answer ?? undefined, leaseUntil: typeof lease === 'string' ? Number(lease) : Infinity };
    },
  };
}
