/**
 * `statementDefinitions`: the same for every caller of one environment (of one upstream), large (a base-64 blank
 * form per form), rarely changed. One shared entry per environment holds the full payload; any
 * selection is answered from it.
 *
 * - Fresh for `freshMs`: answered from a parsed copy in process memory (no Redis round trip, no
 *   re-parsing of megabytes of JSON).
 * - Then stale: answered at once while one background refresh runs; while the upstream fails the
 *   stale copy keeps being served, for up to `staleIfErrorMs`, with refreshes retried at most
 *   every `retryMs`.
 * - Single flight: concurrent misses in one process share one call; across replicas a Redis
 *   lock elects one caller and the others wait for its release message, then read its entry.
 * - The shared entry is public data, stored in clear but MACed (the `definitions` key derived from
 *   CREDENTIAL_KEY) with its namespace and time: an entry planted or edited in Redis (a blank form
 *   that would reach every user), or moved from another environment, is a miss, logged and
 *   counted, and never served.
 */
import { randomUUID } from 'node:crypto';
import type { DerivedKeys } from '../derived-keys';
import type { UpstreamTarget } from '../upstream/target';
import { findGatewayError } from '../errors';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import { cacheKeys, type CacheStore } from './cache-store';

/** The upstream's StatementDefinitionsPayload, as far as the cache needs to know it. */
export interface DefinitionsPayload {
  readonly definitions?: readonly unknown[] | null;
  readonly errors?: readonly string[] | null;
  readonly [field: string]: unknown;
}

export type FetchDefinitions = () => Promise<DefinitionsPayload>;

export interface DefinitionsCacheOptions {
  readonly store: CacheStore;
  /** MACs the shared entry, and verifies it under the current or a previous key. */
  readonly keys: Pick<DerivedKeys, 'mac' | 'verify'>;
  readonly metrics: GatewayMetrics;
  readonly log: LogEvents;
  readonly freshMs: number;
  readonly staleIfErrorMs: number;
  /** How long one replica may hold the refresh lock: longer than an upstream call may take. */
  readonly lockMs: number;
  /** After a failed refresh, the next one waits this long (the stale copy is served meanwhile). */
  readonly retryMs?: number;
  readonly clock?: () => number;
  /** Whether the cache store is failing now: a miss then counts `store_down`. */
  readonly storeDown?: () => boolean;
}

interface Entry {
  readonly fetchedAt: number;
  readonly payload: DefinitionsPayload;
  /** When the shared store was last consulted for a newer copy. */
  checkedAt: number;
}

/** The shared store is consulted at most this often while the local copy is stale. */
const CHECK_SHARED_MS = 1_000;

function cacheable(payload: DefinitionsPayload): boolean {
  return Array.isArray(payload.definitions) && (payload.errors ?? []).length === 0;
}

export class DefinitionsCache {
  private readonly local = new Map<string, Entry>();
  private readonly flights = new Map<string, Promise<DefinitionsPayload>>();
  private readonly failedAt = new Map<string, number>();
  /** Namespaces purged here since their last miss: that miss counts `purged`. */
  private readonly purged = new Set<string>();
  private readonly clock: () => number;
  private readonly retryMs: number;

  constructor(private readonly options: DefinitionsCacheOptions) {
    this.clock = options.clock ?? Date.now;
    this.retryMs = options.retryMs ?? Math.min(5_000, options.freshMs);
  }

  /**
   * The payload held in process memory for `target` while it is fresh, without any store call or
   * metric; undefined otherwise (then `get` decides). A refresh replaces the object, so anything
   * derived from one payload can be keyed on its identity.
   */
  freshLocal(target: UpstreamTarget): DefinitionsPayload | undefined {
    const entry = this.local.get(target.cacheNamespace);
    return entry && this.clock() - entry.fetchedAt < this.options.freshMs ? entry.payload : undefined;
  }

  /**
   * Forgets the copy held in process memory (every replica does, on a purge's notice), so that the
   * next read consults the shared store, which the purge emptied, and then the upstream; the
   * definitions answers and the hot path, which serve only the fresh local copy, follow at once.
   * `purged`: false when notices may have been lost, which is no purge of this namespace.
   */
  forget(namespace: string | undefined, purged = true): void {
    for (const name of namespace === undefined ? [...this.local.keys()] : [namespace]) {
      this.local.delete(name);
      if (purged) this.purged.add(name);
    }
  }

  /** The definitions of `target` (its cacheNamespace); `fetchFull` asks the upstream for every field. */
  async get(target: UpstreamTarget, fetchFull: FetchDefinitions): Promise<DefinitionsPayload> {
    const { freshMs, staleIfErrorMs, metrics } = this.options;
    const namespace = target.cacheNamespace;
    const now = this.clock();
    let entry = this.local.get(namespace);
    if (entry && now - entry.fetchedAt < freshMs) {
      metrics.cacheLookup('definitions', 'hit');
      return entry.payload;
    }
    // Another replica may have refreshed it.
    if (!entry || now - entry.checkedAt >= CHECK_SHARED_MS) {
      const shared = await this.readShared(namespace, entry?.fetchedAt);
      if (shared) this.local.set(namespace, (entry = shared));
      if (entry) entry.checkedAt = now;
    }
    const age = entry ? now - entry.fetchedAt : Infinity;
    if (entry && age < freshMs) {
      metrics.cacheLookup('definitions', 'hit');
      return entry.payload;
    }
    if (entry && age < freshMs + staleIfErrorMs) {
      metrics.cacheLookup('definitions', 'stale');
      const lastFailure = this.failedAt.get(namespace);
      if (lastFailure === undefined || now - lastFailure >= this.retryMs) {
        this.refresh(target, fetchFull).flight.catch(() => undefined);
      }
      return entry.payload;
    }
    metrics.cacheLookup('definitions', 'miss');
    // A copy of our own that aged out is `expired`; none at all is `cold` (a new process).
    metrics.cacheMiss('definitions', this.purged.delete(namespace) ? 'purged' : this.options.storeDown?.() ? 'store_down' : entry ? 'expired' : 'cold');
    const { flight, owner } = this.refresh(target, fetchFull);
    try {
      return await flight;
    } catch (error) {
      // The shared call ran with its first caller's credential. A refusal of that credential is
      // that caller's alone: the others ask with their own (uncached) rather than inherit it.
      if (owner || findGatewayError(error)?.code !== 'UNAUTHENTICATED') throw error;
      return fetchFull();
    }
  }

  /** The namespace's one refresh in this process; `owner` when this call started it. */
  private refresh(target: UpstreamTarget, fetchFull: FetchDefinitions): { flight: Promise<DefinitionsPayload>; owner: boolean } {
    const namespace = target.cacheNamespace;
    const running = this.flights.get(namespace);
    if (running) return { flight: running, owner: false };
    const flight = this.fetchOnce(namespace, fetchFull)
      .then((payload) => {
        // An answer that could not be kept is retried no sooner than a failure would be.
        if (cacheable(payload)) this.failedAt.delete(namespace);
        else this.failedAt.set(namespace, this.clock());
        return payload;
      })
      .catch((error: unknown) => {
        this.failedAt.set(namespace, this.clock());
        this.options.log.cacheRefreshFailed({ cache: 'definitions', environment: target.environment, error });
        throw error;
      })
      .finally(() => this.flights.delete(namespace));
    this.flights.set(namespace, flight);
    return { flight, owner: true };
  }

  /** One upstream call among all replicas: the lock holder fetches, the others wait for it. */
  private async fetchOnce(namespace: string, fetchFull: FetchDefinitions): Promise<DefinitionsPayload> {
    const { store, lockMs, freshMs } = this.options;
    const lockKey = cacheKeys.definitionsLock(namespace);
    for (let attempt = 0; attempt < 2; attempt++) {
      const token = await store.acquireLock(lockKey, lockMs, randomUUID());
      if (token) {
        try {
          // Another replica may have fetched, stored and released between this replica's read of
          // the shared entry and its lock: read it again under the lock, then fetch only if stale.
          const shared = await this.readShared(namespace, this.local.get(namespace)?.fetchedAt);
          if (shared && this.clock() - shared.fetchedAt < freshMs) {
            this.local.set(namespace, shared);
            return shared.payload;
          }
          return await this.fetchAndStore(namespace, fetchFull);
        } finally {
          await store.releaseLock(lockKey, token);
        }
      }
      await store.waitForRelease(lockKey, lockMs);
      const shared = await this.readShared(namespace, this.local.get(namespace)?.fetchedAt);
      if (shared && this.clock() - shared.fetchedAt < freshMs) {
        this.local.set(namespace, shared);
        return shared.payload;
      }
      // The holder failed or its answer was not cacheable: take the lock once more.
    }
    return this.fetchAndStore(namespace, fetchFull);
  }

  private async fetchAndStore(namespace: string, fetchFull: FetchDefinitions): Promise<DefinitionsPayload> {
    const payload = await fetchFull();
    // An answer with the upstream's own errors is passed on, never cached.
    if (!cacheable(payload)) return payload;
    const fetchedAt = this.clock();
    this.local.set(namespace, { fetchedAt, payload, checkedAt: fetchedAt });
    const { freshMs, staleIfErrorMs, store } = this.options;
    const ttl = freshMs + staleIfErrorMs;
    const json = JSON.stringify(payload);
    const tag = this.options.keys.mac('definitions', namespace, String(fetchedAt), json);
    await store.set(cacheKeys.definitions(namespace), `${fetchedAt}\n${tag}\n${json}`, ttl);
    // Written after the entry: a replica that sees this time finds an entry at least as new.
    await store.set(cacheKeys.definitionsFetchedAt(namespace), String(fetchedAt), ttl);
    return payload;
  }

  /**
   * The shared entry when it is newer than `newerThan`. Its small time stamp is read first, so a
   * replica with a stale copy does not download megabytes each second to learn nothing is new.
   */
  private async readShared(namespace: string, newerThan = -1): Promise<Entry | undefined> {
    const { store } = this.options;
    const stamp = Number(await store.get(cacheKeys.definitionsFetchedAt(namespace)));
    if (!Number.isFinite(stamp) || stamp <= newerThan) return undefined;
    const text = await store.get(cacheKeys.definitions(namespace));
    if (!text) return undefined;
    const newline = text.indexOf('\n');
    const second = text.indexOf('\n', newline + 1);
    const stampText = text.slice(0, newline);
    const fetchedAt = Number(stampText);
    if (newline < 0 || !Number.isFinite(fetchedAt) || fetchedAt <= newerThan) return undefined;
    const json = text.slice(second + 1);
    if (second < 0 || !this.options.keys.verify('definitions', text.slice(newline + 1, second), namespace, stampText, json)) {
      this.options.metrics.cacheStoreError('open');
      this.options.log.cacheEntryRejected({ cache: 'definitions', namespace });
      return undefined;
    }
    try {
      return { fetchedAt, payload: JSON.parse(json) as DefinitionsPayload, checkedAt: this.clock() };
    } catch {
      return undefined;
    }
  }
}
