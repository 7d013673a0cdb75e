/**
 * The hot path's options (src/http/hot-path.ts) from the runtime: the same stores, limits,
 * strategies, slots and logger the gateway's Yoga pipeline (plugins.ts) is given.
 */
import type { GraphQLSchema } from 'graphql';
import type { HotDocuments } from '../fast-path/hot-documents';
import type { ReadCache } from '../cache/read-cache';
import type { DefinitionsAnswers } from '../cache/definitions-answers';
import { corsFor } from '../http/cors';
import type { HotPathOptions } from '../http/hot-path';
import type { IdentityStrategy } from '../identity/strategy';
import { servedMetrics } from '../observability/served-metrics';
import type { GatewayRuntime } from './runtime';

export interface HotPathParts {
  readonly hot: HotDocuments;
  readonly schema: GraphQLSchema;
  readonly identities: readonly IdentityStrategy[];
  readonly reads: ReadCache;
  readonly definitionsAnswers: DefinitionsAnswers;
  readonly yoga: HotPathOptions['yoga'];
}

export function hotPathOptions(runtime: GatewayRuntime, { hot, schema, identities, reads, definitionsAnswers, yoga }: HotPathParts): HotPathOptions {
  const { config, requestState: state } = runtime;
  return {
    hot, schema, strategies: identities, yoga,
    csrf: { allowedOrigins: config.allowedOrigins, trustProxy: config.trustProxy, cookieSecure: config.cookieSecure },
    limit: config.limits.session,
    counters: runtime.rateLimits,
    reads,
    definitionsAnswers,
    forwarder: runtime.forwarder,
    log: runtime.log,
    metrics: servedMetrics(runtime.metrics.registry, () => runtime.metrics.hotPathAnswered()),
    clock: runtime.clock,
    cors: corsFor(config.allowedOrigins),
    state,
  };
}
