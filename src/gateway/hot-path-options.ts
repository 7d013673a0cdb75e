/**
 * The hot path's options (src/hot-path/hot-path.ts) from the runtime: the shared execute steps of
 * the gateway's pipeline (plugins.ts, execute-steps.ts), in its order, and what the answer writer
 * needs (the slots the access log and the session cookies read, Yoga's CORS option, the metrics).
 */
import type { GraphQLSchema } from 'graphql';
import type { HotDocuments } from '../fast-path/hot-documents';
import { corsFor } from '../http/cors';
import type { HotPathOptions } from '../hot-path/hot-path';
import { servedMetrics } from '../observability/served-metrics';
import { isShared, type ExecuteStep } from './execute-step';
import type { GatewayRuntime } from './runtime';

export interface HotPathParts {
  readonly hot: HotDocuments;
  readonly schema: GraphQLSchema;
  /** The gateway pipeline's execute steps (gatewayPipeline(...).steps). */
  readonly steps: readonly ExecuteStep[];
  readonly yoga: HotPathOptions['yoga'];
}

export function hotPathOptions(runtime: GatewayRuntime, { hot, schema, steps, yoga }: HotPathParts): HotPathOptions {
  const { config, requestState } = runtime;
  return {
    hot, schema, yoga,
    steps: steps.filter(isShared).map((step) => step.hot),
    log: runtime.log,
    metrics: servedMetrics(runtime.metrics.registry, () => runtime.metrics.hotPathAnswered()),
    clock: runtime.clock,
    cors: corsFor(config.allowedOrigins),
    startedAt: requestState.startedAt,
    setCookies: requestState.setCookies,
  };
}
