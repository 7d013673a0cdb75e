/** `GET /metrics`: the registry in Prometheus text format. */
import type { Plugin } from 'graphql-yoga';
import type { GatewayMetrics } from './metrics';

export interface MetricsEndpointOptions {
  readonly metrics: GatewayMetrics;
  readonly path?: string;
}

export function useMetricsEndpoint({ metrics, path = '/metrics' }: MetricsEndpointOptions): Plugin {
  return {
    async onRequest(payload) {
      const { url, request } = payload;
      if (url.pathname !== path || request.method !== 'GET') return;
      const body = await metrics.registry.metrics();
      const contentType = metrics.registry.contentType;
      payload.endResponse(new Response(body, { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' } }));
    },
  };
}
