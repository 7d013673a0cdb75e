/**
 * The plugins on Mesh's upstream calls (`onFetch`), which both products share. Mesh takes its
 * fetch hooks only from the plugins it is built with (`additionalEnvelopPlugins`), so these go to
 * Mesh, once; each product's own plugin list goes to its Yoga (gateway/plugins.ts,
 * gateway/front-plugins.ts). They act by the request's context, so one copy serves both.
 */
import type { MeshPlugin } from '@graphql-mesh/types';
import { usePdfCache } from '../cache/use-pdf-cache';
import type { IdentityContext } from '../identity/use-identity';
import { useCredentialBroker } from '../identity/use-credential-broker';
import type { GatewayRuntime } from './runtime';

export function upstreamCallPlugins(runtime: GatewayRuntime): MeshPlugin<IdentityContext>[] {
  const { caches, metrics } = runtime;
  const { cache } = runtime.config;
  const { operations, outcomes } = runtime.requestState;
  return [
    // Upstream calls: the identity's credential in, rotated tokens kept, a 401 as the identity says.
    useCredentialBroker({ upstreamFetch: runtime.upstreamFetch, operations, outcomes }),
    // Around the brokered call: PDFs per identity and statement from the PDF cache.
    usePdfCache({ store: caches.store, rewriter: caches.pdfRewriter, metrics, ttlMs: cache.pdfTtlMs, maxPdfBytes: cache.pdfMaxBytes, outcomes }),
  ];
}
