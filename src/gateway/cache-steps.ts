/**
 * The caches' steps each pipeline answers with, made from the runtime in one place: the gateway's
 * product makes one of each (server.ts), which its execute steps give both the pipeline's plugins
 * and the hot path (execute-steps.ts); the drop-in front makes its own (front-plugins.ts).
 */
import { createDefinitionsAnswers, type DefinitionsAnswers } from '../cache/definitions-answers';
import { createReadCache, type ReadCache } from '../cache/read-cache';
import type { GatewayRuntime } from './runtime';

/** Statement reads per identity, on the cache store. */
export function readCacheOf(runtime: GatewayRuntime): ReadCache {
  const { caches, config, metrics, clock, documents } = runtime;
  return createReadCache({ store: caches.store, ttlMs: config.cache.readsTtlMs, metrics, clock, documents });
}

/** Definitions hits from the bytes of earlier answers. */
export function definitionsAnswersOf(runtime: GatewayRuntime): DefinitionsAnswers {
  return createDefinitionsAnswers({ definitions: runtime.caches.definitions, metrics: runtime.metrics });
}
