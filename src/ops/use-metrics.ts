/**
 * `GET /metrics` (the registry in Prometheus text format) and the standard GraphQL metrics.
 * `/metrics` has the /ops page's access rule (ops/access.ts): OPS_TOKEN as Bearer or Basic when
 * set, loopback only when not. Its counters (login failures, rate limits, service-account names)
 * tell an attacker how a guessing run is doing.
 */
import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from '../errors';
import type { GatewayMetrics } from '../observability/metrics';
import type { OpsVerdict } from './access';
import { useOpsEndpoint, type OpsEndpoint } from './endpoint';

export interface MetricsEndpointOptions {
  readonly metrics: GatewayMetrics;
  /** Who may read it (createOpsAccess). */
  readonly access: (request: Request, serverContext: unknown) => OpsVerdict;
  readonly path?: string;
}

/** `GET /metrics` (ops/endpoint.ts): on OPS_PORT when it is set, else on the traffic port. */
export function metricsEndpoint({ metrics, access, path = '/metrics' }: MetricsEndpointOptions): OpsEndpoint {
  const scrape = async () => {
    const body = await metrics.registry.metrics();
    return new Response(body, { status: 200, headers: { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' } });
  };
  return (request, serverContext, { pathname } = new URL(request.url)) => {
    if (pathname !== path || request.method !== 'GET') return undefined;
    const verdict = access(request, serverContext);
    if (verdict === 'hidden') return undefined; // 404, as for any unknown path
    if (verdict === 'unauthorized') {
      return errorResponse(401, 'UNAUTHENTICATED', '/metrics needs the OPS_TOKEN.', { headers: { 'www-authenticate': 'Bearer realm="statement-gateway metrics"' } });
    }
    return scrape();
  };
}

/** The same, as a plugin of the Yoga pipeline. */
export function useMetricsEndpoint(options: MetricsEndpointOptions): Plugin {
  return useOpsEndpoint(metricsEndpoint(options));
}

/**
 * graphql-yoga's Prometheus plugin (envelop's metrics): operations, their duration, each phase's
 * duration, errors by phase, and HTTP durations by method and status. Every label that a client
 * chooses freely is off (operation name, error path, URL), so the series stay bounded; the
 * summary and the schema-change and deprecated-field counters are off as well (cost, no use).
 */
export function useGraphqlMetrics({ metrics }: { readonly metrics: GatewayMetrics }): Plugin {
  return usePrometheus({
    registry: metrics.registry,
    endpoint: false,
    skipIntrospection: true,
    labels: { operationName: false, path: false, url: false, fieldName: false, typeName: false, returnType: false },
    metrics: {
      graphql_envelop_request: true,
      graphql_envelop_request_duration: true,
      graphql_envelop_request_time_summary: false,
      graphql_envelop_phase_parse: true,
      graphql_envelop_phase_validate: true,
      graphql_envelop_phase_context: true,
      graphql_envelop_phase_execute: true,
      graphql_envelop_phase_subscribe: false,
      graphql_envelop_error_result: true,
      graphql_envelop_deprecated_field: false,
      graphql_envelop_schema_change: false,
      graphql_envelop_execute_resolver: false,
      graphql_yoga_http_duration: true,
    },
  });
}
