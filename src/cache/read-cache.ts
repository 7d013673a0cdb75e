/**
 * The read cache's steps (statement reads per identity, on the cache store), for both of its
 * callers: the Yoga pipeline's useReadCache (through @envelop/response-cache) and the hot path
 * (src/gateway/execute-steps.ts). One per gateway pipeline: its writes still on their way are its
 * own, and a read here of the same key waits for them (bounded), whichever caller made them; a
 * read of another key never waits (concurrent reads of one identity are no queue).
 *
 * What is stored is `{"storedAt":<ms>,"result":<the result's JSON>}`; a hit is answered with the
 * result's bytes as they were stored, never parsed and serialised again.
 */
import { createHash } from 'node:crypto';
import { OperationTypeNode, type DocumentNode, type ExecutionResult } from 'graphql';
import type { RequestIdentity } from '../identity/strategy';
import type { GatewayMetrics, MissReason } from '../observability/metrics';
import type { DocumentFacts, ExecutedOperation } from '../request/executed';
import type { UpstreamTarget } from '../upstream/target';
import { cacheKeys, UNKNOWN_GENERATION, type CacheStore, type GroupRead } from './cache-store';
import { RequestSlot } from '../request/slot';
import { identityScope } from './scope';

/** How long a read waits for this replica's own write of the same key still on its way. */
const WRITE_WAIT_MS = 50;
/** The reads this cache answers: getStatements and the 12 get<Form>Statements. */
const READ_FIELD = /^get(F[a-z0-9]+)?Statements$/;
/** A stored entry's head; the rest, but its closing brace, is the result's JSON. */
const STORED_HEAD = /^\{"storedAt":(\d+),"result":/;

export interface ReadCacheScope {
  readonly scope: string;
  /** A bounded metrics label: the read's field, or `multiple`. */
  readonly operation: string;
}

/** A hit: when it was stored, and the result's JSON. */
export interface StoredRead {
  readonly storedAt: number;
  readonly bytes: string;
}

/** `Cache-Control: no-cache` (or `no-store`, or `max-age=0`) on the request: skip the cached answer. */
export function bypasses(cacheControl: string | null | undefined): boolean {
  if (!cacheControl) return false;
  const directives = cacheControl.toLowerCase().split(',').map((directive) => directive.trim());
  return directives.some((directive) => directive === 'no-cache' || directive === 'no-store' || directive === 'max-age=0');
}

/** No error in the result and none in any payload's own `errors` list. */
export function cleanResult(result: { errors?: readonly unknown[]; data?: unknown }): boolean {
  if (result.errors?.length) return false;
  if (typeof result.data !== 'object' || result.data === null) return false;
  return Object.values(result.data).every((payload: unknown) => {
    if (typeof payload !== 'object' || payload === null) return payload === null ? false : true;
    const errors = (payload as { errors?: unknown }).errors;
    return !Array.isArray(errors) || errors.length === 0;
  });
}

/** The stored entry's answer, or undefined for an entry of another form (older bare entries: misses). */
export function storedRead(text: string): StoredRead | undefined {
  const head = STORED_HEAD.exec(text);
  if (!head || !text.endsWith('}')) return undefined;
  return { storedAt: Number(head[1]), bytes: text.slice(head[0].length, -1) };
}

/** `Age`: whole seconds since the answer was stored. */
export function ageOf(storedAt: number, now: number): string {
  return String(Math.max(0, Math.floor((now - storedAt) / 1000)));
}

/** The key of a read: its scope, and a hash of its document, variables and operation name. */
export function readKey(scope: string | null | undefined, documentString: string, variableValues: unknown, operationName: string | null | undefined): string {
  return `${scope ?? ''}|${createHash('sha256')
    .update(documentString)
    .update('\0')
    .update(JSON.stringify(variableValues ?? {}))
    .update('\0')
    .update(operationName ?? '')
    .digest('base64url')}`;
}

export interface ReadCacheStoreOptions {
  readonly store: CacheStore;
  readonly ttlMs: number;
  readonly metrics: GatewayMetrics;
  readonly clock: () => number;
  /**
   * Distinct reads kept per identity (the most recently written; older ones are dropped first).
   * Each variant of a query or its variables is one entry: without a bound, one identity could
   * fill the shared store with variants and evict everybody else's entries.
   */
  readonly maxEntries?: number;
  /** What is known of each parsed document (whether it selects `pdf`). */
  readonly documents: DocumentFacts;
}

export interface ReadCache {
  readonly ttlMs: number;
  /** The clock entries are stamped with (for `Age`). */
  now(): number;
  /** The read's scope when this cache may answer it: a trusted identity's query of reads only, no PDF. */
  scopeOf(identity: RequestIdentity | undefined, upstream: UpstreamTarget, executed: ExecutedOperation | undefined, document: DocumentNode): ReadCacheScope | undefined;
  /**
   * Starts the request's lookup of `key` as soon as its identity is known (once per request and
   * key: a request the hot path handed to the pipeline keeps the lookup it started).
   */
  lookAhead(request: Request, key: string): Promise<GroupRead>;
  /** The request's lookup of `key`: the one started ahead, else a new one. */
  lookUp(request: Request, key: string): Promise<GroupRead>;
  /** What a lookup found: undefined for a miss, or when the request bypasses the cache. */
  storedIn(read: GroupRead, cacheControl: string | null | undefined): StoredRead | undefined;
  /** Counts a lookup's outcome (once per request, by whichever caller answers it), a miss with its reason. */
  counted(scope: ReadCacheScope, hit: boolean, request: Request): void;
  /**
   * Stores an answer after it was sent (never before: serialising, sealing and sending the entry
   * would delay every miss), unless a mutation's invalidation changed the group since `generation`
   * was read, however late the write arrives. `bytes`, when given, are exactly the result's JSON
   * (the fast path's upstream bytes): stored as they are, not serialised again.
   */
  write(key: string, generation: string, result: ExecutionResult, ttlMs: number, bytes?: string): void;
  /** The ttl of an answer for this identity: never past the upstream credential's expiry. */
  ttlFor(identity: RequestIdentity | undefined, ttlMs: number): number;
}

export function createReadCache({ store, ttlMs, metrics, clock, maxEntries = 500, documents }: ReadCacheStoreOptions): ReadCache {
  /** Writes not yet done, by key: the last one of each (sent after the others, it ends after them). */
  const writing = new Map<string, Promise<unknown>>();
  /** Each request's lookup, with the key it read and, for a miss, why it missed. */
  const early = new RequestSlot<{ readonly key: string; readonly read: Promise<GroupRead>; readonly why: Promise<MissReason> }>();
  // A purge (on any replica) drops what these writes were for: their generation is stale, so the
  // store refuses them, and no read need wait for them.
  store.onNotice(() => writing.clear(), () => writing.clear());
  const groupOf = (key: string) => {
    const bar = key.indexOf('|');
    return { group: cacheKeys.reads(key.slice(0, bar)), id: key.slice(bar + 1) };
  };
  /**
   * The key's member of its group, after this replica's own write of that key still on its way (the
   * same read, answered a moment ago, is a hit). Writes of the identity's other keys are not waited
   * for: they cannot answer this read, and waiting for them queued every concurrent read of one
   * identity behind the others' writes (issue 44: +8 ms p50 at 16 connections of one session).
   */
  const lookUp = async (key: string): Promise<GroupRead> => {
    const { group, id } = groupOf(key);
    const pending = writing.get(key);
    // Bounded: a slow cache Redis must not hold the identity's next read for a whole command
    // timeout (after the bound it reads what is there, a miss at worst: caches fail open).
    if (pending) await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, WRITE_WAIT_MS).unref())]);
    return store.getMembers(group, [id]);
  };
  /**
   * Why a lookup missed, asked as soon as it missed: before the answer's write, which would hide
   * the reason (the store keeps why a member was dropped, and its index what expired).
   */
  const whyMissed = async (request: Request, key: string, read: GroupRead): Promise<MissReason> => {
    if (read.generation === UNKNOWN_GENERATION) return 'store_down';
    if (bypasses(request.headers.get('cache-control'))) return 'bypass';
    if (read.values[0] != null) return 'cold';
    // Said by the lookup itself (the Redis store's one-member read), or asked now.
    const said = read.absent?.[0];
    if (said) return said;
    const { group, id } = groupOf(key);
    const [reason] = await store.absences(group, [id]);
    return reason ?? 'cold';
  };
  /** The request's lookup of `key` (once per request and key: a request the hot path handed to the pipeline keeps it). */
  const lookupOf = (request: Request, key: string) => {
    const started = early.get(request);
    if (started?.key === key) return started;
    const read = lookUp(key);
    const why = read.then((found) => whyMissed(request, key, found), (): MissReason => 'store_down');
    // A request refused before the cache never reads it: its lookup must not fail unheard.
    read.catch(() => undefined);
    why.catch(() => undefined);
    const lookup = { key, read, why };
    early.set(request, lookup);
    return lookup;
  };
  return {
    ttlMs,
    now: clock,
    scopeOf(identity, upstream, executed, document) {
      // An identity caches may not trust (a credential the upstream has not accepted yet) must reach the upstream.
      if (!identity?.cacheTrusted) return undefined;
      if (executed?.operation.operation !== OperationTypeNode.QUERY) return undefined;
      const fields = [...new Set(executed.fields.map((field) => field.name.value))].filter((field) => field !== '__typename');
      if (fields.length === 0 || !fields.every((field) => READ_FIELD.test(field)) || documents.selectsPdf(document)) return undefined;
      // Past the upstream credential's own expiry the upstream would refuse the read: so must we.
      const credential = identity.credential();
      const expiry = credential.expiry;
      if (expiry !== undefined && expiry * 1000 <= clock()) return undefined;
      return { scope: identityScope(upstream.cacheNamespace, credential.uid), operation: fields.length === 1 ? (fields[0] ?? 'unknown') : 'multiple' };
    },
    lookAhead(request, key) {
      return lookupOf(request, key).read;
    },
    lookUp(request, key) {
      return lookupOf(request, key).read;
    },
    storedIn(read, cacheControl) {
      const text = read.values[0];
      return text == null || bypasses(cacheControl) ? undefined : storedRead(text);
    },
    counted(scope, hit, request) {
      const result = hit ? 'hit' : 'miss';
      metrics.cacheLookup('statements', result);
      metrics.readCacheLookup(scope.operation, result);
      if (!hit) void (early.get(request)?.why ?? Promise.resolve<MissReason>('cold')).then((reason) => metrics.cacheMiss('statements', reason));
    },
    write(key, generation, result, ttl, bytes) {
      if (generation === UNKNOWN_GENERATION || ttl <= 0) return;
      const { group, id } = groupOf(key);
      const storedAt = clock();
      // Written once the answer is on its way; a lookup of the same key here waits for it (lookUp).
      const written = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => store.putMembers(group, [{ id, value: bytes === undefined ? JSON.stringify({ storedAt, result }) : `{"storedAt":${storedAt},"result":${bytes}}` }], ttl, generation, maxEntries))
        .catch(() => metrics.cacheStoreError('putMembers'))
        .finally(() => {
          if (writing.get(key) === written) writing.delete(key);
        });
      writing.set(key, written);
    },
    ttlFor(identity, ttl) {
      const expiry = identity?.credential().expiry;
      return expiry === undefined ? ttl : Math.max(0, Math.min(ttl, expiry * 1000 - clock()));
    },
  };
}
