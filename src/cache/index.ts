/**
 * The gateway's caches, all on one cache store (Redis at CACHE_REDIS_URL or REDIS_URL, else
 * process memory), all failing open: definitions per environment, statement reads and PDFs per
 * identity (sealed, see sealed-values.ts), invalidated by mutations.
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
import { createSealedValues, sealGroupMembers } from './sealed-values';
import type { CacheStore } from './cache-store';

export interface Caches {
  /** The fail-open store every cache uses. */
  readonly store: CacheStore;
  readonly definitions: DefinitionsCache;
  readonly pdfRewriter: PdfRewriter;
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

export function createCaches({ config, store, keys, health, metrics, log, clock }: CachesOptions): Caches {
  const shared = sealGroupMembers(failOpen(store, { health, metrics }), createSealedValues({ keys }), () => metrics.cacheStoreError('open'));
  return {
    store: shared,
    definitions: new DefinitionsCache({
      store: shared,
      keys,
      metrics,
      log,
      freshMs: config.cache.definitionsFreshMs,
      staleIfErrorMs: config.cache.definitionsStaleIfErrorMs,
      lockMs: config.upstreamTimeoutMs + 1_000,
      ...(clock ? { clock } : {}),
    }),
    pdfRewriter: createPdfRewriter(buildSchema(readFileSync(UPSTREAM_SDL, 'utf8'))),
  };
}
