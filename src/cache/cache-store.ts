/**
 * Where the caches keep their entries. One interface, a memory and a Redis implementation, run
 * through the same tests. Entries of one identity live in a *group*: its members can be read
 * together and dropped together or by id, without scanning the keyspace (a per-group index).
 *
 * Every method may throw when the store is unreachable; `failOpen` turns that into misses.
 */

/** A member to store: its id in the group, its value, and optional alternative ids. */
export interface GroupEntry {
  readonly id: string;
  readonly value: string;
  /** Other names of the same member (a statement's uploaderId), usable in `dropMembers`. */
  readonly aliases?: readonly string[];
}

export interface GroupRead {
  readonly values: (string | null)[];
  readonly generation: string;
  /**
   * Why each absent member is absent, read with it (the Redis store's one-member read), so a miss
   * needs no second command for its reason; absent when the store did not say (then `absences`).
   */
  readonly absent?: readonly (AbsenceReason | null)[];
}

/** A generation no store returns: puts made with it are skipped. */
export const UNKNOWN_GENERATION = 'unknown';

/** What to drop from a group: every member, or those named by id or alias. */
export type GroupSelection = 'all' | { readonly ids: readonly string[]; readonly aliases: readonly string[] };

/** Why members were dropped: a mutation through the gateway, or an operator's purge. */
export type DropReason = 'invalidated' | 'purged';

/**
 * Why a member was absent, as its group remembers it: never held (or evicted), past its TTL, or
 * dropped (the drop's reason is kept until the member would have expired anyway).
 */
export type AbsenceReason = 'cold' | 'expired' | DropReason;

/** Channel of purge notices: every replica's in-process layers follow what a purge dropped. */
export const PURGE_CHANNEL = 'sgw:cache:purged';

/**
 * Single-flight locks shared by replicas (definitions refreshes, service-account sign-ins). The
 * cache stores implement them (Redis SET NX PX with a token, release by pub/sub).
 */
export interface Locks {
  /**
   * A lock for single flight: `token` when acquired, null when another holder has it. The caller
   * makes the token, so it can release a lock whose acquisition it could not confirm.
   */
  acquireLock(key: string, ttlMs: number, token: string): Promise<string | null>;
  releaseLock(key: string, token: string): Promise<void>;
  /** Resolves when the lock is released (or has expired), or after `timeoutMs`. */
  waitForRelease(key: string, timeoutMs: number): Promise<void>;
}

export interface CacheStore extends Locks {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * Values of members of one group, in the order asked (null: absent), and the group's
   * generation: every drop changes it.
   */
  getMembers(group: string, ids: readonly string[]): Promise<GroupRead>;
  /**
   * Stores members, unless the group was dropped from since `generation` was read. A read that
   * raced a mutation (its upstream answer predates the change) is then not cached.
   * A group keeps its `maxMembers` most recently written members: older ones are dropped first,
   * so one identity cannot fill the store.
   */
  putMembers(group: string, entries: readonly GroupEntry[], ttlMs: number, generation: string, maxMembers: number): Promise<void>;
  /** Drops members (the group's generation changes either way); how many values were dropped. */
  dropMembers(group: string, selection: GroupSelection, reason?: DropReason): Promise<number>;
  /** How many values `dropMembers` would drop now (a purge's dry run), through the group's own index. */
  countMembers(group: string, selection: GroupSelection): Promise<number>;
  /** Why each of `ids` is absent (asked right after a lookup missed, before the answer is written). */
  absences(group: string, ids: readonly string[]): Promise<AbsenceReason[]>;
  /** Notes `group` in the index `index` until `untilMs` (a group index: what `all` purges finds). */
  indexGroup(index: string, group: string, untilMs: number): Promise<void>;
  /** The groups noted in `index` whose time has not passed at `nowMs`. */
  indexedGroups(index: string, nowMs: number): Promise<string[]>;
  /** Deletes single keys (the definitions entries); how many there were. */
  deleteKeys(keys: readonly string[]): Promise<number>;
  /** How many of these single keys exist. */
  countKeys(keys: readonly string[]): Promise<number>;
  /** Sends a notice to every replica's `onNotice` listeners, this one's included (Redis pub/sub). */
  announce(notice: string): Promise<void>;
  /**
   * Listens to notices. `lost` is called when notices may have been missed (a reconnection), so
   * a listener can forget what it holds in memory rather than keep what a purge dropped.
   */
  onNotice(listener: (notice: string) => void, lost: () => void): () => void;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Key names. Entries of one identity share the hash tag `{<env>:<identity hash>}`, so a group's
 * members and its index live in one slot of a Redis Cluster and one script can touch them all.
 */
export const cacheKeys = {
  definitions: (environment: string) => `sgw:cache:{${environment}}:definitions`,
  definitionsFetchedAt: (environment: string) => `sgw:cache:{${environment}}:definitions:at`,
  definitionsLock: (environment: string) => `sgw:cache:{${environment}}:definitions:lock`,
  reads: (scope: string) => `sgw:cache:{${scope}}:reads`,
  pdfs: (scope: string) => `sgw:cache:{${scope}}:pdf`,
  /** The identities' groups of one upstream namespace (group-index.ts), beside its definitions. */
  groups: (namespace: string) => `sgw:cache:{${namespace}}:groups`,
};
