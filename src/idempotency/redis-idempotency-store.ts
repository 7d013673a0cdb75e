/**
 * Idempotency records in the session store's Redis, one Lua script per operation so that two
 * replicas claiming the same key at once cannot both win: the claim reads the record and writes
 * it in one step (SET NX in effect). A record is a hash `sgw:idem:{<identity>}:<key>` (fingerprint,
 * token, lease, sealed answer) beside three per-identity keys: its index (a sorted set of its keys
 * by expiry, bounding how many it holds), its sizes (each kept answer's bytes and their sum
 * `#bytes`: names are base64url, so it meets no key) and its leases (running claims by lease end,
 * bounding how many run at once). All share the identity's hash tag (one Cluster slot), and so does
 * the record's name under the prefix used before (`sgw:session:idem:`), which the claim reads in
 * the same step. Every write sets a TTL. Errors are thrown: the plugin fails closed.
 */
import type { RedisClient } from '../redis';
import type { ClaimOutcome, CompleteOutcome, IdempotencyStore, RecordName } from './idempotency-store';

/** A record's state as a caller that does not hold it sees it: status, fingerprint, answer. */
const STATE = `
local function state(key, now)
  local found = redis.call('HMGET', key, 'fp', 'ans', 'lease')
  if not found[1] then return nil end
  if found[2] then return {'done', found[1], found[2]} end
  -- A claim made before leases (no 'lease') holds until its record expires, as it did then.
  if not found[3] or tonumber(found[3]) > now then return {'pending', found[1], ''} end
  return {'orphaned', found[1], ''}
end
`;

// KEYS: record, index, sizes, leases, the record's legacy name. ARGV: fingerprint, now, leaseUntil,
// maxPerIdentity, ttlMs, key name, keepUntil, maxBytes, token, maxRunning, reserveBytes.
// Expired keys give their bytes back and lapsed leases stop counting before the bounds are checked;
// an identity with no key left has no bytes either (no drift outlives the keys).
const CLAIM = `${STATE}
local now = tonumber(ARGV[2])
local found = state(KEYS[1], now)
if found then return found end
found = state(KEYS[5], now)
if found then table.insert(found, 'legacy') return found end
local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
if #gone > 0 then
  local sizes = redis.call('HMGET', KEYS[3], unpack(gone))
  local freed = 0
  for i = 1, #gone do freed = freed + tonumber(sizes[i] or '0') end
  redis.call('HDEL', KEYS[3], unpack(gone))
  if freed > 0 then redis.call('HINCRBY', KEYS[3], '#bytes', -freed) end
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
local count = redis.call('ZCARD', KEYS[2])
if count == 0 then redis.call('DEL', KEYS[3]) end
local running = redis.call('ZCARD', KEYS[4])
if running >= tonumber(ARGV[10]) then return {'full', '1000'} end
local held = tonumber(redis.call('HGET', KEYS[3], '#bytes') or '0') + running * tonumber(ARGV[11])
if count >= tonumber(ARGV[4]) or held >= tonumber(ARGV[8]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'full', tostring(oldest[2] and (tonumber(oldest[2]) - now) or tonumber(ARGV[5]))}
end
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'tok', ARGV[9], 'lease', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[7], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[6])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
return {'claimed'}
`;

// KEYS: record, leases. ARGV: token, leaseUntil, now, key name. A record (and its leases) outlives
// its lease, should IDEMPOTENCY_TTL be shorter than the run: a record gone mid-run would free its key.
const RENEW = `
local found = redis.call('HMGET', KEYS[1], 'tok', 'ans')
if found[1] ~= ARGV[1] or found[2] then return 0 end
redis.call('HSET', KEYS[1], 'lease', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[4])
local left = tonumber(ARGV[2]) - tonumber(ARGV[3])
for i = 1, 2 do
  if redis.call('PTTL', KEYS[i]) < left then redis.call('PEXPIRE', KEYS[i], left) end
end
return 1
`;

// KEYS: record, index, sizes, leases. ARGV: fingerprint, answer, ttlMs, now, keepUntil, key name,
// orphanedOnly, token. The holder names its claim by token; a settling of an orphaned claim by its
// fingerprint, and only once the lease ran out.
const COMPLETE = `
local found = redis.call('HMGET', KEYS[1], 'fp', 'ans', 'lease', 'tok')
if found[1] ~= ARGV[1] then return {'gone'} end
if found[2] then return {'kept', found[2]} end
if ARGV[7] == '1' then
  if not found[3] or tonumber(found[3]) > tonumber(ARGV[4]) then return {'pending'} end
elseif found[4] ~= ARGV[8] then
  return {'gone'}
end
redis.call('HSET', KEYS[1], 'ans', ARGV[2])
redis.call('HDEL', KEYS[1], 'lease', 'tok')
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[4], ARGV[6])
local size = string.len(ARGV[2])
local before = tonumber(redis.call('HGET', KEYS[3], ARGV[6]) or '0')
redis.call('HSET', KEYS[3], ARGV[6], size)
redis.call('HINCRBY', KEYS[3], '#bytes', size - before)
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return {'stored'}
`;

// KEYS: record, index, leases. ARGV: token, key name.
const RELEASE = `
local found = redis.call('HMGET', KEYS[1], 'tok', 'ans')
if found[1] ~= ARGV[1] or found[2] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
return 1
`;

type Arg = string | number;
interface IdempotencyCommands {
  sgwIdempotencyClaim(...args: Arg[]): Promise<string[]>;
  sgwIdempotencyRenew(...args: Arg[]): Promise<number>;
  sgwIdempotencyComplete(...args: Arg[]): Promise<string[]>;
  sgwIdempotencyRelease(...args: Arg[]): Promise<number>;
}

/** Where a record's keys live: `sgw:idem:`, or the session store's prefix used before. */
const prefixOf = (name: RecordName) => (name.legacy ? 'sgw:session:idem:' : 'sgw:idem:');
const indexKey = (name: RecordName) => `${prefixOf(name)}{${name.identity}}`;
const sizesKey = (name: RecordName) => `${indexKey(name)}:sizes`;
const leasesKey = (name: RecordName) => `${indexKey(name)}:leases`;
const recordKey = (name: RecordName) => `${indexKey(name)}:${name.key}`;

function claimOutcome([status, found = '', answer = '', legacy]: string[]): ClaimOutcome {
  const where = legacy === 'legacy' ? { legacy: true } : {};
  if (status === 'done') return { status, fingerprint: found, answer, ...where };
  if (status === 'pending' || status === 'orphaned') return { status, fingerprint: found, ...where };
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
    redis.defineCommand('sgwIdempotencyClaim', { numberOfKeys: 5, lua: CLAIM });
    redis.defineCommand('sgwIdempotencyRenew', { numberOfKeys: 2, lua: RENEW });
    redis.defineCommand('sgwIdempotencyComplete', { numberOfKeys: 4, lua: COMPLETE });
    redis.defineCommand('sgwIdempotencyRelease', { numberOfKeys: 3, lua: RELEASE });
  }
  const commands = redis as unknown as RedisClient & IdempotencyCommands;
  return {
    async claim(name, fingerprint, options) {
      const { now, leaseMs, ttlMs } = options;
      const legacy = recordKey({ ...name, legacy: true });
      return claimOutcome(await commands.sgwIdempotencyClaim(
        recordKey(name), indexKey(name), sizesKey(name), leasesKey(name), legacy,
        fingerprint, now, now + leaseMs, options.maxPerIdentity, ttlMs, name.key, now + ttlMs, options.maxBytes, options.token, options.maxRunning, options.reserveBytes,
      ));
    },
    async renew(name, token, leaseUntil, now) {
      return (await commands.sgwIdempotencyRenew(recordKey(name), leasesKey(name), token, leaseUntil, now, name.key)) === 1;
    },
    async complete(name, fingerprint, answer, options) {
      const orphanedOnly = 'orphanedOnly' in options;
      return completeOutcome(await commands.sgwIdempotencyComplete(
        recordKey(name), indexKey(name), sizesKey(name), leasesKey(name),
        fingerprint, answer, options.ttlMs, options.now, options.now + options.ttlMs, name.key, orphanedOnly ? '1' : '0', orphanedOnly ? '' : options.token,
      ));
    },
    async release(name, token) {
      await commands.sgwIdempotencyRelease(recordKey(name), indexKey(name), leasesKey(name), token, name.key);
    },
    async find(name) {
      const [fingerprint, answer, lease] = await redis.hmget(recordKey(name), 'fp', 'ans', 'lease');
      if (typeof fingerprint !== 'string') return undefined;
      // A claim made before leases holds until its record expires, as it did then.
      return { fingerprint, answer: answer ?? undefined, leaseUntil: typeof lease === 'string' ? Number(lease) : Infinity };
    },
  };
}
