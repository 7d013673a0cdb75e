/**
 * The Redis side of session-index.ts: a user's index is one hash (`sgw:session:{<user>}:index`,
 * field: a session key, value: `<last used>:<end>`), on the same slot as its sessions. Reading it
 * costs two round trips whatever its size (bounded by SESSION_MAX_PER_USER): the index, then its
 * sessions' records in one pipeline (a script may reach only the keys it is given, and these are
 * known only from the index; they share its hash tag, so the pipeline goes to one node).
 */
import type { Environment } from '../environment';
import type { RedisClient } from '../redis';
import { indexKeyOf, type SessionIndex } from './session-index';
import type { SessionRecord } from './session-store';

/** The fields of a session hash, in the order `recordOf` reads them after a status. */
export const RECORD_FIELDS = ['uid', 'env', 'cred', 'created', 'abs', 'ua', 'lm'] as const;
/** The same, as a script's HMGET arguments; and its reply `v` as a script returns it (absent fields empty). */
export const LUA_FIELDS = RECORD_FIELDS.map((field) => `'${field}'`).join(', ');
export const LUA_RECORD = RECORD_FIELDS.map((_, i) => `v[${i + 1}] or ''`).join(', ');

/** A session hash as the scripts return it (after their status); empty fields are absent ones. */
export function recordOf(reply: readonly (string | null)[]): SessionRecord | undefined {
  const [, uid, environment, credential, created, absolute, userAgent, listingMac] = reply;
  if (!uid || (environment !== 'sandbox' && environment !== 'production') || !credential) return undefined;
  return {
    uid, environment: environment satisfies Environment, credential, createdAt: Number(created), absoluteExpiresAt: Number(absolute),
    ...(userAgent ? { userAgent } : {}),
    ...(listingMac ? { listingMac } : {}),
  };
}

// The live entries of an index (its dead ones dropped), as field, value, field, value...
const INDEXED = `
local entries = redis.call('HGETALL', KEYS[1])
local live = {}
for i = 1, #entries, 2 do
  local ends = string.match(entries[i + 1], '^%d+:(%d+)$')
  if not ends or tonumber(ends) <= tonumber(ARGV[1]) then
    redis.call('HDEL', KEYS[1], entries[i])
  else
    live[#live + 1] = entries[i]
    live[#live + 1] = entries[i + 1]
  end
end
return live
`;

// A session's record, deleted with its index entry at once: whoever takes it (two revokes at once)
// is the only one to sign it out and count it.
const TAKE = `
local v = redis.call('HMGET', KEYS[1], ${LUA_FIELDS})
redis.call('DEL', KEYS[1])
if KEYS[2] then redis.call('HDEL', KEYS[2], KEYS[1]) end
if not v[1] then return nil end
return {'taken', ${LUA_RECORD}}
`;

/** Scripts given a session's key and, for a session with a user, its index (session-index.ts). */
export type SessionScript = 'sgwSessionCreate' | 'sgwSessionTouch' | 'sgwSessionPeek' | 'sgwSessionDeleteIfCredential' | 'sgwSessionTake';

type ScriptCall = (...keysAndArgs: (string | number)[]) => Promise<unknown>;

/**
 * Defines a session script twice, with one key and (`<name>Indexed`) with two. A fixed number of
 * keys, never one passed first: ioredis groups auto-pipelined commands by the slot of their first
 * argument, and a count there put commands of several slots in one pipeline, which a Cluster
 * client refuses.
 */
export function defineSessionScript(redis: RedisClient, name: SessionScript, lua: string): void {
  redis.defineCommand(name, { numberOfKeys: 1, lua });
  redis.defineCommand(`${name}Indexed`, { numberOfKeys: 2, lua });
}

/** Runs a session script on `key`, and on its user's index when it has one. */
export async function runSessionScript<R>(redis: RedisClient, name: SessionScript, key: string, ...args: (string | number)[]): Promise<R> {
  const commands = redis as unknown as Record<string, ScriptCall>;
  const index = indexKeyOf(key);
  const run = index === undefined ? commands[name]?.(key, ...args) : commands[`${name}Indexed`]?.(key, index, ...args);
  if (!run) throw new Error(`${name} is not defined on this client`);
  // The script's own reply: each caller names the shape its script returns.
  return (await run) as R;
}

interface IndexCommands {
  sgwSessionIndexed(indexKey: string, now: number): Promise<string[]>;
}

export function defineIndexCommands(redis: RedisClient): void {
  redis.defineCommand('sgwSessionIndexed', { numberOfKeys: 1, lua: INDEXED });
  defineSessionScript(redis, 'sgwSessionTake', TAKE);
}

export function redisSessionIndex(redis: RedisClient): SessionIndex {
  const commands = redis as unknown as RedisClient & IndexCommands;
  return {
    async indexed(indexKey, now) {
      const entries = await commands.sgwSessionIndexed(indexKey, now);
      const seen = new Map<string, number>();
      for (let i = 0; i + 1 < entries.length; i += 2) seen.set(entries[i] as string, Number((entries[i + 1] as string).split(':')[0]));
      if (seen.size === 0) return [];
      const keys = [...seen.keys()];
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.hmget(key, ...RECORD_FIELDS);
      const replies = (await pipeline.exec()) ?? [];
      return keys.flatMap((key, i) => {
        const [error, fields] = replies[i] ?? [];
        if (error) throw error;
        const record = recordOf(['active', ...(fields as (string | null)[])]);
        return record && record.absoluteExpiresAt > now ? [{ key, record, lastSeenAt: seen.get(key) ?? record.createdAt }] : [];
      });
    },
    async take(key) {
      const reply = await runSessionScript<string[] | null>(redis, 'sgwSessionTake', key);
      return reply ? recordOf(reply) : undefined;
    },
  };
}
