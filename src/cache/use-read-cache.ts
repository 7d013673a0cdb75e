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
import { defaultGetDocumentString, useResponseCache, type Cache } from '@envelop/response-cache';
import type { ExecutionArgs, ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { IdentityContext } from '../identity/use-identity';
import { rawJsonAnswers } from '../request/raw-json-answers';
import { UNKNOWN_GENERATION } from './cache-store';
import { ageOf, cleanResult, readKey, type ReadCache, type ReadCacheScope } from './read-cache';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';

export { cleanResult, type ReadCacheScope } from './read-cache';

export interface ReadCacheOptions {
  /** The read cache's steps (read-cache.ts), shared with the hot path where it has one. */
  readonly cache: ReadCache;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
}

type ReadCacheContext = IdentityContext & { readCache?: ReadCacheScope };

/** The read cache's plugin, and the plugin that starts its lookups early (placed after useIdentity). */
export type ReadCachePlugin = Plugin<ReadCacheContext> & { readonly lookahead: Plugin<ReadCacheContext> };

/**
 * A hit's result: its bytes are the answer (raw-json-answers.ts); `data` is parsed only if a hook
 * reads it (none does on a hit: the error mapping, metrics and audit read `errors`).
 */
function storedResult(bytes: string): ExecutionResult {
  const result: ExecutionResult = {};
  Object.defineProperty(result, 'data', {
    enumerable: true,
    configurable: true,
    get() {
      const data = (JSON.parse(bytes) as ExecutionResult).data;
      Object.defineProperty(result, 'data', { value: data, enumerable: true, configurable: true, writable: true });
      return data;
    },
  });
  return result;
}

export function useReadCache({ cache, operations }: ReadCacheOptions): ReadCachePlugin {
  /** When the answer a request got from the cache was stored. */
  const servedFrom = new WeakMap<Request, number>();
  /** Hits' results, answered with their stored bytes. */
  const raw = rawJsonAnswers();
  /** One per request: it remembers the group generation its lookup saw, for the write after. */
  const cacheFor = (context: ReadCacheContext): Cache => {
    let generation = UNKNOWN_GENERATION;
    return {
      async get(key) {
        // Read even when bypassed: the generation it returns lets the fresh answer replace the entry.
        const read = await cache.lookUp(context.request, key);
        generation = read.generation;
        const stored = cache.storedIn(read, context.request.headers.get('cache-control'));
        if (context.readCache) cache.counted(context.readCache, stored !== undefined, context.request);
        if (!stored) return undefined;
        servedFrom.set(context.request, stored.storedAt);
        const result = storedResult(stored.bytes);
        raw.keep(result, stored.bytes);
        return result;
      },
      set(key, value, _entities, ttl) {
        // The generation the lookup saw, before the upstream was asked (read-cache.ts).
        cache.write(key, generation, value, ttl);
      },
      // Mutations invalidate per identity (useCacheInvalidation), not by entity.
      invalidate() {},
    };
  };

  /** The read's scope, when the cache may answer it. */
  const scopeOf = (args: ExecutionArgs & { contextValue: ReadCacheContext }): ReadCacheScope | undefined => {
    const context = args.contextValue;
    return cache.scopeOf(context.identity, context.upstream, operations.get(context.request), args.document);
  };

  const lookahead: Plugin<ReadCacheContext> = {
    onExecute({ args }) {
      const readCache = scopeOf(args);
      if (!readCache) return;
      const key = readKey(readCache.scope, defaultGetDocumentString(args), args.variableValues, args.operationName as string | null | undefined);
      void cache.lookAhead(args.contextValue.request, key);
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
          ttl: cache.ttlMs,
          invalidateViaMutation: false,
          includeExtensionMetadata: false,
          buildResponseCacheKey: ({ documentString, variableValues, operationName, sessionId }) => readKey(sessionId, documentString, variableValues, operationName),
          shouldCacheResult: ({ result }) => cleanResult(result),
          // Never kept past the upstream credential's expiry (the upstream re-checks after it).
          onTtl: ({ ttl, context }) => cache.ttlFor(context.identity, ttl),
        }) as Plugin<ReadCacheContext>,
      );
    },
    onResultProcess: raw.onResultProcess,
    onResponse({ request, response }) {
      const storedAt = servedFrom.get(request);
      if (storedAt !== undefined) response.headers.set('age', ageOf(storedAt, cache.now()));
    },
    onExecute({ args, extendContext }) {
      const readCache = scopeOf(args);
      if (readCache) extendContext({ readCache });
    },
  };
}
