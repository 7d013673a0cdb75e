import { pingRedis, type RedisClient } from '../redis';
import { replicaAcks } from './replica-acks';
import type { Environment } from '../environment';
import type { PeekResult, SessionRecord, SessionStore, TouchResult } from './session-store';

// A session is one hash. Touch reads it and moves its expiry in one round trip and atomically:
// the idle window, capped by the absolute end; past the absolute end it is deleted.
const TOUCH = `
local v = redis.call('HMGET', KEYS[1], 'uid', 'env', 'cred', 'created', 'abs')
if not v[1] then return nil end
local remaining = tonumber(v[5]) - tonumber(ARGV[2])
if remaining <= 0 then
  redis.call('DEL', KEYS[1])
  return {'expired'}
end
redis.call('PEXPIRE', KEYS[1], math.min(tonumber(ARGV[1]), remaining))
return {'active', v[1], v[2], v[3], v[4], v[5]}
`;

// The same read without moving the expiry, with the milliseconds it has left.
const PEEK = `
local v = redis.call('HMGET', KEYS[1], 'uid', 'env', 'cred', 'created', 'abs')
if not v[1] then return nil end
if tonumber(v[5]) <= tonumber(ARGV[1]) then
  redis.call('DEL', KEYS[1])
  return {'expired'}
end
return {'active', v[1], v[2], v[3], v[4], v[5], tostring(redis.call('PTTL', KEYS[1]))}
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
  return redis.call('DEL', KEYS[1])
end
return 0
`;

interface SessionCommands {
  sgwSessionTouch(key: string, idleMs: number, now: number): Promise<string[] | null>;
  sgwSessionPeek(key: string, now: number): Promise<string[] | null>;
  sgwSessionReplaceCredential(key: string, expected: string, next: string): Promise<number>;
  sgwSessionDeleteIfCredential(key: string, expected: string): Promise<number>;
}

/** A session hash as the scripts return it (after their status). */
function recordOf(reply: readonly string[]): SessionRecord | undefined {
  const [, uid, environment, credential, created, absolute] = reply;
  if (!uid || (environment !== 'sandbox' && environment !== 'production') || !credential) return undefined;
  return { uid, environment: environment satisfies Environment, credential, createdAt: Number(created), absoluteExpiresAt: Number(absolute) };
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

/** Sessions in Redis (`sgw:session:<hash of the id>`), shared by every replica. */
export function createRedisSessionStore(redis: RedisClient, options: RedisSessionStoreOptions = {}): SessionStore {
  if (!('sgwSessionTouch' in redis)) {
    redis.defineCommand('sgwSessionTouch', { numberOfKeys: 1, lua: TOUCH });
    redis.defineCommand('sgwSessionPeek', { numberOfKeys: 1, lua: PEEK });
    redis.defineCommand('sgwSessionReplaceCredential', { numberOfKeys: 1, lua: REPLACE_CREDENTIAL });
    redis.defineCommand('sgwSessionDeleteIfCredential', { numberOfKeys: 1, lua: DELETE_IF_CREDENTIAL });
  }
  const commands = redis as unknown as RedisClient & SessionCommands;
  const acks = replicaAcks(redis, options.replicaAckMs ?? REPLICA_ACK_MS);
  return {
    kind: 'redis',
    async create(key, record, idleMs) {
      const results = await commands
        .multi()
        .hset(key, {
          uid: record.uid,
          env: record.environment,
          cred: record.credential,
          created: String(record.createdAt),
          abs: String(record.absoluteExpiresAt),
        })
        .pexpire(key, Math.max(1, Math.min(idleMs, record.absoluteExpiresAt - Date.now())))
        .exec();
      const failure = results?.find(([error]) => error)?.[0];
      if (!results || failure) throw failure ?? new Error('session write aborted');
      const waitMs = acks.waitMs();
      if (waitMs > 0) acks.acknowledged(await replicasAcknowledging(commands, key, waitMs));
    },
    async touch(key, idleMs, now): Promise<TouchResult> {
      const reply = await commands.sgwSessionTouch(key, idleMs, now);
      if (!reply) return { status: 'missing' };
      if (reply[0] === 'expired') return { status: 'expired' };
      const record = recordOf(reply);
      return record ? { status: 'active', record } : { status: 'missing' };
    },
    async peek(key, now): Promise<PeekResult> {
      const reply = await commands.sgwSessionPeek(key, now);
      if (!reply) return { status: 'missing' };
      if (reply[0] === 'expired') return { status: 'expired' };
      const record = recordOf(reply);
      const left = Number(reply[6]);
      return record && left > 0 ? { status: 'active', record, idleExpiresAt: now + left } : { status: 'missing' };
    },
    async replaceCredential(key, expected, next) {
      return (await commands.sgwSessionReplaceCredential(key, expected, next)) === 1;
    },
    async delete(key) {
      await commands.del(key);
    },
    async deleteIfCredential(key, expected) {
      return (await commands.sgwSessionDeleteIfCredential(key, expected)) === 1;
    },
    ping() {
      return pingRedis(redis);
    },
  };
}
