/**
 * Statement reads (`getStatements`, `get<Form>Statements`) cached per identity with
 * `@envelop/response-cache`, on the cache store. It runs after useIdentity: only a request
 * whose session was just validated reaches it (a forged or expired cookie is refused before any
 * lookup, so it can never be answered from the cache). Its scope is the identity (environment
 * and a hash of the upstream uid), never shared.
 *
 * A request with `Cache-Control: no-cache` is answered by the upstream and its answer replaces the
 * cached one (statements added behind the gateway's back show at once); an answer from the cache
 * carries `Age`, the seconds since it was stored, so a page can say how old its list is.
 *
 * The lookup starts as soon as the request's identity is known (`lookahead`, placed right after
 * useIdentity), so that its Redis round trip overlaps the rate limit's instead of following it; it
 * is only read here, after every check before the cache passed (a refused request answers nothing
 * from it).
 *
 * Left to the PDF cache: reads that select `pdf` (those ask the upstream every time, so access
 * is re-checked, and take the PDFs they can from the PDF cache).
 */
import { createHash } from 'node:crypto';
import { defaultGetDocumentString, useResponseCache, type Cache } from '@envelop/response-cache';
import { OperationTypeNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { IdentityContext } from '../identity/use-identity';
import type { GatewayMetrics } from '../observability/metrics';
import { identityScope } from './scope';
import { cacheKeys, UNKNOWN_GENERATION, type CacheStore, type GroupRead } from './cache-store';
import type { DocumentFacts, ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';

/** How long an identity's read waits for this replica's own write still on its way. */
const WRITE_WAIT_MS = 50;

export interface ReadCacheOptions {
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
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** What is known of each parsed document (whether it selects `pdf`). */
  readonly documents: DocumentFacts;
}

/** The reads this cache answers: getStatements and the 12 get<Form>Statements. */
const READ_FIELD = /^get(F[a-z0-9]+)?Statements$/;

/** Whether a root field is one of the reads this cache answers (an operation with one is never the hot path's). */
export function isCachedRead(fieldName: string): boolean {
  return READ_FIELD.test(fieldName);
}

/** Set on the context by this plugin when the request's read may use the cache. */
export interface ReadCacheScope {
  readonly scope: string;
  /** A bounded metrics label: the read's field, or `multiple`. */
  readonly operation: string;
}

type ReadCacheContext = IdentityContext & { readCache?: ReadCacheScope };

/** The read cache's plugin, and the plugin that starts its lookups early (placed after useIdentity). */
export type ReadCachePlugin = Plugin<ReadCacheContext> & { readonly lookahead: Plugin<ReadCacheContext> };

/** The response cache's key of a read: its scope, and a hash of its document, variables and operation name. */
function readKey(sessionId: string | null | undefined, documentString: string, variableValues: unknown, operationName: string | null | undefined): string {
  return `${sessionId ?? ''}|${createHash('sha256')
    .update(documentString)
    .update('\0')
    .update(JSON.stringify(variableValues ?? {}))
    .update('\0')
    .update(operationName ?? '')
    .digest('base64url')}`;
}

/** What is stored: the answer and when (entries of the older bare form are read as misses). */
interface StoredRead {
  readonly storedAt: number;
  readonly result: ExecutionResult;
}

function storedRead(text: string): StoredRead | undefined {
  const parsed = JSON.parse(text) as Partial<StoredRead>;
  return typeof parsed.storedAt === 'number' && typeof parsed.result === 'object' ? (parsed as StoredRead) : undefined;
}

/** `Cache-Control: no-cache` (or `no-store`, or `max-age=0`) on the request: skip the cached answer. */
function bypasses(request: Request): boolean {
  const directives = (request.headers.get('cache-control') ?? '').toLowerCase().split(',').map((directive) => directive.trim());
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

export function useReadCache({ store, ttlMs, metrics, clock, maxEntries = 500, operations, documents }: ReadCacheOptions): ReadCachePlugin {
  /** When the answer a request got from the cache was stored. */
  const servedFrom = new WeakMap<Request, number>();
  /** Writes not yet done, by group: the last one of each (sent after the others, it ends after them). */
  const writing = new Map<string, Promise<unknown>>();
  /** Lookups started early, by request, with the key they read. */
  const early = new WeakMap<Request, { readonly key: string; readonly read: Promise<GroupRead> }>();
  const groupOf = (key: string) => {
    const bar = key.indexOf('|');
    return { group: cacheKeys.reads(key.slice(0, bar)), id: key.slice(bar + 1) };
  };
  /** The members' read, after this replica's own write to the group still on its way (so an identity's next read finds what its previous one stored). */
  const lookUp = async (key: string): Promise<GroupRead> => {
    const { group, id } = groupOf(key);
    const pending = writing.get(group);
    // Bounded: a slow cache Redis must not hold the identity's next read for a whole command
    // timeout (after the bound it reads what is there, a miss at worst: caches fail open).
    if (pending) await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, WRITE_WAIT_MS).unref())]);
    return store.getMembers(group, [id]);
  };
  /** One per request: it remembers the group generation its lookup saw, for the write after. */
  const cacheFor = (context: ReadCacheContext): Cache => {
    let generation = UNKNOWN_GENERATION;
    const operation = context.readCache?.operation ?? 'unknown';
    return {
      async get(key) {
        const started = early.get(context.request);
        // Read even when bypassed: the generation it returns lets the fresh answer replace the entry.
        const read = await (started?.key === key ? started.read : lookUp(key));
        generation = read.generation;
        const text = read.values[0];
        const stored = text == null || bypasses(context.request) ? undefined : storedRead(text);
        const result = stored ? 'hit' : 'miss';
        metrics.cacheLookup('statements', result);
        metrics.readCacheLookup(operation, result);
        if (stored) servedFrom.set(context.request, stored.storedAt);
        return stored?.result;
      },
      set(key, value, _entities, ttl) {
        const { group, id } = groupOf(key);
        const stored: StoredRead = { storedAt: clock(), result: value };
        // The generation the lookup saw, before the upstream was asked: a mutation's invalidation
        // since then changes it, and the write is refused however late it arrives.
        const seen = generation;
        if (seen === UNKNOWN_GENERATION) return;
        // Written once the answer is on its way, not before it: serialising, sealing and sending the
        // entry would otherwise delay every miss (bench/README.md). Nothing changes the result
        // after execution; the identity's next lookup here waits for this write (lookUp).
        const written = new Promise<void>((resolve) => setImmediate(resolve))
          .then(() => store.putMembers(group, [{ id, value: JSON.stringify(stored) }], ttl, seen, maxEntries))
          .catch(() => metrics.cacheStoreError('putMembers'))
          .finally(() => {
            if (writing.get(group) === written) writing.delete(group);
          });
        writing.set(group, written);
      },
      // Mutations invalidate per identity (useCacheInvalidation), not by entity.
      invalidate() {},
    };
  };

  /** The read's scope, when the cache may answer it. */
  const scopeOf = (args: ExecutionArgs & { contextValue: ReadCacheContext }): ReadCacheScope | undefined => {
    const context = args.contextValue;
    const identity = context.identity;
    // An identity caches may not trust (a credential the upstream has not accepted yet) must reach the upstream.
    if (!identity?.cacheTrusted) return undefined;
    const credential = identity.credential();
    const executed = operations.get(context.request);
    if (executed?.operation.operation !== OperationTypeNode.QUERY) return undefined;
    const fields = [...new Set(executed.fields.map((field) => field.name.value))].filter((field) => field !== '__typename');
    if (fields.length === 0 || !fields.every((field) => READ_FIELD.test(field)) || documents.selectsPdf(args.document)) return undefined;
    // Past the upstream credential's own expiry the upstream would refuse the read: so must we.
    const expiry = credential.expiry;
    if (expiry !== undefined && expiry * 1000 <= clock()) return undefined;
    return { scope: identityScope(context.upstream.cacheNamespace, credential.uid), operation: fields.length === 1 ? (fields[0] ?? 'unknown') : 'multiple' };
  };

  const lookahead: Plugin<ReadCacheContext> = {
    onExecute({ args }) {
      const readCache = scopeOf(args);
      if (!readCache) return;
      const key = readKey(readCache.scope, defaultGetDocumentString(args), args.variableValues, args.operationName as string | null | undefined);
      const read = lookUp(key);
      // A request refused before the cache never reads it: its lookup must not fail unheard.
      read.catch(() => undefined);
      early.set(args.contextValue.request, { key, read });
    },
  };

  return {
    lookahead,
    onPluginInit({ addPlugin }) {
      addPlugin(
        useResponseCache<ReadCacheContext>({
          session: (context) => context.readCache?.scope ?? null,
          enabled: (context) => context.readCache !== undefined,
          cache: (context) => cacheFor(context as ReadCacheContext),
          ttl: ttlMs,
          invalidateViaMutation: false,
          includeExtensionMetadata: false,
          buildResponseCacheKey: ({ documentString, variableValues, operationName, sessionId }) => readKey(sessionId, documentString, variableValues, operationName),
          shouldCacheResult: ({ result }) => cleanResult(result),
          // Never kept past the upstream credential's expiry (the upstream re-checks after it).
          onTtl: ({ ttl, context }) => {
            const expiry = context.identity?.credential().expiry;
            return expiry === undefined ? ttl : Math.max(0, Math.min(ttl, expiry * 1000 - clock()));
          },
        }) as Plugin<ReadCacheContext>,
      );
    },
    onResponse({ request, response }) {
      const storedAt = servedFrom.get(request);
      if (storedAt !== undefined) response.headers.set('age', String(Math.max(0, Math.floor((clock() - storedAt) / 1000))));
    },
    onExecute({ args, extendContext }) {
      const readCache = scopeOf(args);
      if (readCache) extendContext({ readCache });
    },
  };
}
