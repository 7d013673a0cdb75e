/**
 * The gateway's caches, all on one cache store (Redis at CACHE_REDIS_URL or REDIS_URL, else
 * process memory), all failing open: definitions per environment, statement reads and PDFs per
 * identity (sealed, see sealed-values.ts), invalidated by mutations, purged by operators (purge.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema } from 'graphql';
import type { GatewayConfig } from '../config';
import type { DerivedKeys } from '../derived-keys';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import { DefinitionsCache } from './definitions-cache';
import { failOpen } from './fail-open';
import { createPdfRewriter, type PdfRewriter } from './pdf-documents';
import { indexGroups } from './group-index';
import { purgeNotice } from './purge';
import { createSealedValues, sealGroupMembers } from './sealed-values';
import type { CacheStore } from './cache-store';

export interface Caches {
  /** The fail-open store every cache uses. */
  readonly store: CacheStore;
  readonly definitions: DefinitionsCache;
  readonly pdfRewriter: PdfRewriter;
  /** For purges (purge.ts): the store itself, not failing open, and the same with groups sealed. */
  readonly purgeStores: { readonly store: CacheStore; readonly sealed: CacheStore };
}

/** The upstream's schema, which the PDF rewriter needs to tell statements from other objects. */
const UPSTREAM_SDL = path.resolve(__dirname, '..', '..', 'sources', 'statement-filing-service', 'schema.graphql');

export interface CachesOptions {
  readonly config: GatewayConfig;
  readonly store: CacheStore;
  /** Derived from CREDENTIAL_KEY (or the process's own key): seal reads and PDFs, name groups, MAC definitions. */
  readonly keys: DerivedKeys;
  readonly health: StoreHealth;
  readonly metrics: GatewayMetrics;
  readonly log: LogEvents;
  readonly clock?: () => number;
}

export function createCaches({ config, store, keys, health, metrics, log, clock = Date.now }: CachesOptions): Caches {
  const values = createSealedValues({ keys });
  const shared = sealGroupMembers(indexGroups(failOpen(store, { health, metrics }), { clock }), values, () => metrics.cacheStoreError('open'));
  const definitions = new DefinitionsCache({
    store: shared,
    keys,
    metrics,
    log,
    freshMs: config.cache.definitionsFreshMs,
    staleIfErrorMs: config.cache.definitionsStaleIfErrorMs,
    lockMs: config.upstreamTimeoutMs + 1_000,
    clock,
    storeDown: () => health.down,
  });
  // A purge on any replica: this one's copy of the definitions goes too. Notices possibly missed
  // (a reconnection): the copy goes anyway, and is read again from the shared store.
  shared.onNotice(
    (message) => {
      for (const namespace of purgeNotice(message)?.definitions ?? []) definitions.forget(namespace);
    },
    () => definitions.forget(undefined, false),
  );
  return {
    store: shared,
    definitions,
    pdfRewriter: createPdfRewriter(buildSchema(readFileSync(UPSTREAM_SDL, 'utf8'))),
    purgeStores: { store, sealed: sealGroupMembers(store, values) },
  };
}
