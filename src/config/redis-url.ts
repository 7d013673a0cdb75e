/**
 * REDIS_URL and CACHE_REDIS_URL: one server, a Sentinel group or a Cluster, read once at start
 * into a `RedisTarget` that src/redis.ts turns into the matching client. A malformed value is
 * reported by the variable's name and the part that is wrong, never with the value itself: it
 * may carry the password.
 */
import { z } from 'zod';

export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** Where one store lives. The user and password, when given, are those of the data nodes. */
export type RedisTarget =
  /** One server, as ioredis reads a `redis://` or `rediss://` URL (database, TLS, credentials). */
  | { readonly topology: 'single'; readonly url: string }
  /**
   * Sentinels to ask for the current master of `masterName` (Sentinel answers without a password).
   * `tls` (`?tls=true`): the sentinels and the data nodes are all reached over TLS.
   */
  | { readonly topology: 'sentinel'; readonly sentinels: readonly RedisNode[]; readonly masterName: string; readonly db: number; readonly username?: string; readonly password?: string; readonly tls?: true }
  /** Seed nodes of a Cluster: the client learns the others and the slots from any one of them. `tls`: every node over TLS. */
  | { readonly topology: 'cluster'; readonly nodes: readonly RedisNode[]; readonly username?: string; readonly password?: string; readonly tls?: true };

export type RedisTopology = RedisTarget['topology'];

const FORMS =
  'expected redis:// or rediss:// (one server), redis+sentinel://[user:password@]host:port,host:port,.../<master name>[/<db>][?tls=true] or redis+cluster://[user:password@]host:port,host:port,...[?tls=true]';

/** What is wrong, in words that never repeat the value. */
class Malformed extends Error {}

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new Malformed(`the ${what} is not percent-encoded correctly`);
  }
}

function parseNodes(list: string, defaultPort: number): RedisNode[] {
  const entries = list.split(',').map((entry) => entry.trim());
  if (entries.length === 0 || entries.some((entry) => entry === '')) throw new Malformed('expected a comma-separated list of host:port after //');
  return entries.map((entry, index) => {
    const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(entry);
    if (!match?.[1]) throw new Malformed(`host ${index + 1} is not host:port`);
    const port = match[2] === undefined ? defaultPort : Number(match[2]);
    if (port < 1 || port > 65_535) throw new Malformed(`the port of host ${index + 1} is not from 1 to 65535`);
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });
}

function parseCredentials(userInfo: string | undefined): { username?: string; password?: string } {
  if (userInfo === undefined) return {};
  const colon = userInfo.indexOf(':');
  // As ioredis reads `redis://` URLs: `user`, `user:password` or `:password`.
  const username = decode(colon < 0 ? userInfo : userInfo.slice(0, colon), 'user name');
  const password = colon < 0 ? '' : decode(userInfo.slice(colon + 1), 'password');
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** Parses a `redis+sentinel://` or `redis+cluster://` URL; throws Malformed. */
function parseMultiNode(scheme: 'sentinel' | 'cluster', text: string): RedisTarget {
  const queryAt = text.indexOf('?');
  const rest = queryAt < 0 ? text : text.slice(0, queryAt);
  const query = queryAt < 0 ? undefined : text.slice(queryAt + 1);
  if (rest.includes('#') || (query !== undefined && !/^tls=(true|false)$/.test(query))) throw new Malformed(`a redis+${scheme} URL takes no query but ?tls=true, and no fragment`);
  const tls = query === 'tls=true' ? { tls: true as const } : {};
  // The user information cannot hold an unencoded `@`, the hosts and the path none at all.
  const match = /^(?:([^@]*)@)?([^/@]*)(\/[^@]*)?$/.exec(rest);
  if (!match) throw new Malformed('the user name or password has an unencoded @ (write it as %40)');
  const [, userInfo, hostList = '', path = ''] = match;
  const credentials = parseCredentials(userInfo);
  if (scheme === 'cluster') {
    if (path !== '' && path !== '/') throw new Malformed('a redis+cluster URL takes no path (a Cluster has database 0 only)');
    return { topology: 'cluster', nodes: parseNodes(hostList, 6379), ...credentials, ...tls };
  }
  const sentinels = parseNodes(hostList, 26379);
  const segments = path.split('/').slice(1);
  const [name, db, ...extra] = segments;
  if (!name) throw new Malformed('a redis+sentinel URL needs the master name after the hosts (/<master name>[/<db>])');
  if (extra.length > 0 || (db !== undefined && !/^\d{1,9}$/.test(db))) throw new Malformed('expected /<master name>[/<db>] after the hosts, the database a number');
  return { topology: 'sentinel', sentinels, masterName: decode(name, 'master name'), db: Number(db ?? 0), ...credentials, ...tls };
}

/** Whether every connection to the target is encrypted: `rediss://`, or `?tls=true` on the other forms. */
export function usesTls(target: RedisTarget): boolean {
  return target.topology === 'single' ? /^rediss:/i.test(target.url) : target.tls === true;
}

/** Parses any accepted form; throws Malformed. */
export function parseRedisTarget(text: string): RedisTarget {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'redis+sentinel' || scheme === 'redis+cluster') {
    return parseMultiNode(scheme === 'redis+sentinel' ? 'sentinel' : 'cluster', text.slice(scheme.length + 3));
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new Malformed('not a URL');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Malformed('unknown scheme');
  return { topology: 'single', url: text };
}

/** The zod field for REDIS_URL and CACHE_REDIS_URL. */
export const redisUrl = z
  .string()
  .trim()
  .optional()
  .transform((text, ctx): RedisTarget | undefined => {
    if (text === undefined || text === '') return undefined;
    try {
      return parseRedisTarget(text);
    } catch (error) {
      if (!(error instanceof Malformed)) throw error;
      ctx.addIssue({ code: 'custom', message: `${error.message} (${FORMS})` });
      return z.NEVER;
    }
  });
