/**
 * The cache store in Redis (`CACHE_REDIS_URL`, else `REDIS_URL`), shared by every replica.
 * A group is `<group>:<id>` members, a sorted set of member ids by last write (`<group>#order`),
 * a hash of aliases (`<group>#aliases`) and one of why members were dropped (`<group>#dropped`,
 * for the misses' reasons), all under the group's hash tag and all with a TTL:
 * dropping a group or some of its members is one script over its own index, never a scan of the
 * keyspace, and a write past the group's bound drops its oldest members in the same script.
 * Lock releases and purges are published, so waiters of other replicas wake at once instead of
 * polling, and their in-process layers forget what a purge dropped.
 */
import { pingRedis, type RedisClient } from '../redis';
import { createWaiters } from './waiters';
import { ABSENCES, COUNT_MEMBERS, DROP_MEMBERS, INDEX_GROUP, PUT_MEMBERS, READ_MEMBER, RELEASE_LOCK } from './redis-cache-scripts';
import { PURGE_CHANNEL, UNKNOWN_GENERATION, type AbsenceReason, type CacheStore, type DropReason, type GroupEntry, type GroupSelection } from './cache-store';

/** Where lock releases are announced (the message is the lock's key). */
const RELEASES_CHANNEL = 'sgw:cache:lock-released';
/** Members per read or write command: keeps each reply and script well under the timeout. */
const MEMBERS_PER_COMMAND = 16;
/** Waiters re-check the lock this often in case a release message was missed. */
const RECHECK_MS = 200;

interface CacheCommands {
  sgwCachePutMembers(index: string, aliases: string, generation: string, dropped: string, ...rest: (string | number)[]): Promise<number>;
  sgwCacheDropMembers(index: string, aliases: string, generation: string, dropped: string, prefix: string, mode: string, count: number, ...rest: string[]): Promise<number>;
  sgwCacheCountMembers(index: string, aliases: string, prefix: string, mode: string, count: number, ...rest: string[]): Promise<number>;
  sgwCacheAbsences(index: string, dropped: string, ...ids: string[]): Promise<string[]>;
  sgwCacheReadMember(generation: string, index: string, aliases: string, dropped: string, member: string, id: string): Promise<[string, string | null, string?]>;
  sgwCacheIndexGroup(index: string, group: string, until: number, now: number): Promise<null>;
  sgwCacheReleaseLock(key: string, token: string, channel: string): Promise<number>;
}

/** A reason a script gave, as one of the reasons a store names. */
const absenceReason = (reason: string | undefined): AbsenceReason => (reason === 'expired' || reason === 'invalidated' || reason === 'purged' ? reason : 'cold');

export interface RedisCacheStoreOptions {
  readonly redis: RedisClient;
  /** A second connection for lock-release messages (a subscribed connection runs no commands). */
  readonly subscriber: RedisClient;
}

export function createRedisCacheStore({ redis, subscriber }: RedisCacheStoreOptions): CacheStore {
  if (!('sgwCacheReadMember' in redis)) {
    redis.defineCommand('sgwCachePutMembers', { numberOfKeys: 4, lua: PUT_MEMBERS });
    redis.defineCommand('sgwCacheDropMembers', { numberOfKeys: 4, lua: DROP_MEMBERS });
    redis.defineCommand('sgwCacheCountMembers', { numberOfKeys: 2, lua: COUNT_MEMBERS });
    redis.defineCommand('sgwCacheAbsences', { numberOfKeys: 2, lua: ABSENCES });
    redis.defineCommand('sgwCacheReadMember', { numberOfKeys: 5, lua: READ_MEMBER });
    redis.defineCommand('sgwCacheIndexGroup', { numberOfKeys: 1, lua: INDEX_GROUP });
    redis.defineCommand('sgwCacheReleaseLock', { numberOfKeys: 1, lua: RELEASE_LOCK });
  }
  const commands = redis as unknown as RedisClient & CacheCommands;
  // Not `#index`: that was a plain set of an unbounded group (a key of that name, left by an
  // older gateway, expires by itself).
  const index = (group: string) => `${group}#order`;
  const aliases = (group: string) => `${group}#aliases`;
  const generation = (group: string) => `${group}#generation`;
  const dropped = (group: string) => `${group}#dropped`;
  const member = (group: string, id: string) => `${group}:${id}`;

  const waiters = createWaiters();
  const listeners = new Set<{ readonly notice: (notice: string) => void; readonly lost: () => void }>();
  let subscribed: Promise<unknown> | undefined;
  let readyBefore = false;
  subscriber.on('message', (channel: string, message: string) => {
    if (channel === RELEASES_CHANNEL) waiters.wake(message);
    else if (channel === PURGE_CHANNEL) for (const listener of listeners) listener.notice(message);
  });
  const subscribe = () => (subscribed ??= subscriber.subscribe(RELEASES_CHANNEL, PURGE_CHANNEL).catch(() => (subscribed = undefined)));
  // Resubscribe after a reconnection; a failed subscription is retried by the next waiter. Purge
  // notices sent while this connection was away are lost: listeners forget what they hold.
  const onReady = () => {
    subscribed = undefined;
    void subscribe();
    if (readyBefore) for (const listener of listeners) listener.lost();
    readyBefore = true;
  };
  subscriber.on('ready', onReady);
  if (subscriber.status === 'ready') onReady();

  return {
    kind: 'redis',
    async get(key) {
      return commands.get(key);
    },
    async set(key, value, ttlMs) {
      await commands.set(key, value, 'PX', Math.max(1, ttlMs));
    },
    async getMembers(group, ids) {
      // One member (a statement read): one script, which also says why it is absent.
      if (ids.length === 1) {
        const id = ids[0] as string;
        const [current, value, reason] = await commands.sgwCacheReadMember(generation(group), index(group), aliases(group), dropped(group), member(group, id), id);
        return { values: [value ?? null], generation: current, absent: [value == null ? absenceReason(reason) : null] };
      }
      // Chunks of a few members: a page of large PDFs in one reply would outlast the command
      // timeout. Each chunk also touches the group's index, aliases and generation, so that an
      // evicting Redis (allkeys-lru) drops them no sooner than the members still being read;
      // an index evicted before its members would let a drop miss them.
      const chunks: string[][] = [];
      for (let start = 0; start < ids.length; start += MEMBERS_PER_COMMAND) chunks.push(ids.slice(start, start + MEMBERS_PER_COMMAND).map((id) => member(group, id)));
      // Single commands, in this order on one connection, that the client's auto-pipelining sends
      // with the other requests' commands of the same tick: one socket write for many lookups.
      const [current, , ...replies] = await Promise.all([commands.get(generation(group)), commands.touch(index(group), aliases(group), dropped(group)), ...chunks.map((keys) => commands.mget(...keys))]);
      return { values: replies.flat(), generation: current ?? '0' };
    },
    async putMembers(group, entries: readonly GroupEntry[], ttlMs, expected, maxMembers) {
      if (entries.length === 0 || expected === UNKNOWN_GENERATION) return;
      // Members of one group share a TTL: the index lives as long as the newest member.
      for (let start = 0; start < entries.length; start += MEMBERS_PER_COMMAND) {
        const args: (string | number)[] = [`${group}:`, Math.max(1, Math.round(ttlMs)), expected, Math.max(1, maxMembers)];
        for (const entry of entries.slice(start, start + MEMBERS_PER_COMMAND)) args.push(entry.id, entry.value, entry.aliases?.length ?? 0, ...(entry.aliases ?? []));
        await commands.sgwCachePutMembers(index(group), aliases(group), generation(group), dropped(group), ...args);
      }
    },
    async dropMembers(group, selection: GroupSelection, reason: DropReason = 'invalidated') {
      const prefix = `${group}:`;
      const keys = [index(group), aliases(group), generation(group), dropped(group)] as const;
      if (selection === 'all') return commands.sgwCacheDropMembers(...keys, prefix, 'all', 0, reason);
      return commands.sgwCacheDropMembers(...keys, prefix, 'some', selection.ids.length, ...selection.ids, ...selection.aliases, reason);
    },
    async countMembers(group, selection: GroupSelection) {
      const prefix = `${group}:`;
      if (selection === 'all') return commands.sgwCacheCountMembers(index(group), aliases(group), prefix, 'all', 0);
      return commands.sgwCacheCountMembers(index(group), aliases(group), prefix, 'some', selection.ids.length, ...selection.ids, ...selection.aliases);
    },
    async absences(group, ids) {
      if (ids.length === 0) return [];
      const reasons = await commands.sgwCacheAbsences(index(group), dropped(group), ...ids);
      return reasons.map(absenceReason);
    },
    async indexGroup(index, group, untilMs) {
      await commands.sgwCacheIndexGroup(index, group, Math.round(untilMs), Date.now());
    },
    indexedGroups(index, nowMs) {
      return commands.zrangebyscore(index, `(${Math.round(nowMs)}`, '+inf');
    },
    // One command per key: on a Cluster, keys of different hash tags cannot share one.
    async deleteKeys(keys) {
      const deleted = await Promise.all(keys.map((key) => commands.del(key)));
      return deleted.reduce((sum, n) => sum + n, 0);
    },
    async countKeys(keys) {
      const found = await Promise.all(keys.map((key) => commands.exists(key)));
      return found.reduce((sum, n) => sum + n, 0);
    },
    async announce(notice) {
      await commands.publish(PURGE_CHANNEL, notice);
    },
    onNotice(notice, lost) {
      const listener = { notice, lost };
      listeners.add(listener);
      void subscribe();
      return () => listeners.delete(listener);
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
      listeners.clear();
      subscriber.off('ready', onReady);
      return Promise.resolve();
    },
  };
}
