/**
 * The standard GraphQL metrics (graphql-yoga's Prometheus plugin, ops/use-metrics.ts) for an
 * answer given without Yoga: the hot path's (src/hot-path/hot-path.ts). The same series move as for
 * the same request through Yoga: the operation counted, its duration and its execution's, and the
 * HTTP duration by method and status, with the labels that plugin keeps (operationType; method,
 * statusCode). Its parse (the id's lookup), validation (done once, by the pipeline, for the
 * document) and context building take no measurable time, and are observed as such: every phase's
 * count still equals the operations'.
 * The metrics are looked up in the registry once, after the plugin registered them.
 */
import type { Counter, Histogram, Registry } from 'prom-client';

export interface ServedMetrics {
  /** One operation of `operationType`, answered with `status` after `seconds`, `executeSeconds` of them executing (and statement_gateway_hot_path_answers_total). */
  served(operationType: string, status: number, seconds: number, executeSeconds: number): void;
}

export function servedMetrics(registry: Registry, answered: () => void): ServedMetrics {
  let found: { requests?: Counter; duration?: Histogram; execute?: Histogram; http?: Histogram; instant: (Histogram | undefined)[] } | undefined;
  const metrics = () =>
    (found ??= {
      requests: registry.getSingleMetric('graphql_envelop_request') as Counter | undefined,
      duration: registry.getSingleMetric('graphql_envelop_request_duration') as Histogram | undefined,
      execute: registry.getSingleMetric('graphql_envelop_phase_execute') as Histogram | undefined,
      http: registry.getSingleMetric('graphql_yoga_http_duration') as Histogram | undefined,
      instant: ['parse', 'validate', 'context'].map((phase) => registry.getSingleMetric(`graphql_envelop_phase_${phase}`) as Histogram | undefined),
    });
  return {
    served(operationType, status, seconds, executeSeconds) {
      const { requests, duration, execute, http, instant } = metrics();
      answered();
      const labels = { operationType };
      for (const phase of instant) phase?.observe(labels, 0);
      requests?.inc(labels);
      duration?.observe(labels, seconds);
      execute?.observe(labels, executeSeconds);
      http?.observe({ method: 'POST', statusCode: status, operationType }, seconds);
    },
  };
}
