/**
 * useMetricsEndpoint (with createOpsAccess) and useGraphqlMetrics, in process: who may read
 * /metrics, what a refusal looks like, and which GraphQL series a request leaves behind.
 * In-process specs are `<plugin>.unit.test.ts` beside the area's other tests (test/support/yoga.ts).
 */
import { describe, expect, it } from 'vitest';
import { useRoutes } from '../../src/http/use-routes';
import { createMetrics, type GatewayMetrics } from '../../src/observability/metrics';
import { createOpsAccess, type OpsAccessOptions } from '../../src/ops/access';
import { useGraphqlMetrics, useMetricsEndpoint } from '../../src/ops/use-metrics';
import { parseMetrics } from '../support/metrics';
import { fromAddress, yogaWith } from '../support/yoga';

const TOKEN = 'metrics-token-for-the-spec-0123456789';
const basic = (password: string) => `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}`;
const loopback = fromAddress('127.0.0.1');

function endpoint(access: OpsAccessOptions, path?: string) {
  const metrics = createMetrics({ processMetrics: false });
  metrics.rateLimited('login');
  // As in the gateway: a path the endpoint does not serve falls through to the routes' 404.
  return yogaWith([useMetricsEndpoint({ metrics, access: createOpsAccess(access), ...(path ? { path } : {}) }), useRoutes()]);
}

describe('useMetricsEndpoint with OPS_TOKEN', () => {
  it('refuses a request without the token with 401 UNAUTHENTICATED and a Bearer challenge, showing no series', async () => {
    const answer = await endpoint({ token: TOKEN, trustProxy: 0 }).fetch('/metrics', {}, loopback);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="statement-gateway metrics"');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.text()).toBe('{"errors":[{"message":"/metrics needs the OPS_TOKEN.","extensions":{"code":"UNAUTHENTICATED"}}]}');
  });

  it('refuses a wrong token, as Bearer or Basic, and a token under another scheme', async () => {
    const server = endpoint({ token: TOKEN, trustProxy: 0 });
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, basic('wrong'), `Token ${TOKEN}`, `Bearer`]) {
      expect((await server.fetch('/metrics', { headers: { authorization } }, loopback)).status, authorization).toBe(401);
    }
  });

  it('answers the token as Bearer (Prometheus) or as the Basic password (a browser), from any address', async () => {
    const server = endpoint({ token: TOKEN, trustProxy: 0 });
    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, basic(TOKEN)]) {
      const answer = await server.fetch('/metrics', { headers: { authorization } }, fromAddress('203.0.113.9'));
      expect(answer.status, authorization).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(parseMetrics(await answer.text()).sum('statement_gateway_rate_limited_total', { limit: 'login' })).toBe(1);
    }
  });
});

describe('useMetricsEndpoint without OPS_TOKEN', () => {
  it('answers loopback sockets, IPv4 and IPv6', async () => {
    const server = endpoint({ trustProxy: 0 });
    for (const address of ['127.0.0.1', '127.8.9.1', '::1', '::ffff:127.0.0.1']) {
      expect((await server.fetch('/metrics', {}, fromAddress(address))).status, address).toBe(200);
    }
  });

  it('hides itself (404, as any unknown path) from other addresses, from requests through a proxy, and with TRUST_PROXY set', async () => {
    const hidden: { server: ReturnType<typeof endpoint>; context: object; headers: Record<string, string> }[] = [
      { server: endpoint({ trustProxy: 0 }), context: fromAddress('203.0.113.9'), headers: {} },
      { server: endpoint({ trustProxy: 0 }), context: {}, headers: {} },
      { server: endpoint({ trustProxy: 0 }), context: loopback, headers: { 'x-forwarded-for': '203.0.113.9' } },
      { server: endpoint({ trustProxy: 1 }), context: loopback, headers: {} },
    ];
    for (const [index, { server, context, headers }] of hidden.entries()) {
      const answer = await server.fetch('/metrics', { headers }, context);
      expect(answer.status, `case ${index}`).toBe(404);
      expect(await answer.text()).not.toContain('statement_gateway_');
    }
  });

  it('serves GET on its own path only', async () => {
    const server = endpoint({ trustProxy: 0 }, '/internal/metrics');
    expect((await server.fetch('/internal/metrics', {}, loopback)).status).toBe(200);
    expect((await server.fetch('/metrics', {}, loopback)).status).toBe(404);
    expect((await server.fetch('/internal/metrics', { method: 'POST' }, loopback)).status).toBe(404);
  });
});

describe('useGraphqlMetrics', () => {
  const run = async (metrics: GatewayMetrics, queries: string[]) => {
    const server = yogaWith([useGraphqlMetrics({ metrics })]);
    for (const query of queries) await server.graphql(query);
    return parseMetrics(await metrics.registry.metrics());
  };

  it('counts executed operations, their phases and HTTP answers by operation type, never by the client\'s operation name', async () => {
    const scrape = await run(createMetrics({ processMetrics: false }), ['query Chosen { hello }', 'query Other { hello }']);
    expect(scrape.sum('graphql_envelop_request', { operationType: 'query' })).toBe(2);
    expect(scrape.sum('graphql_envelop_phase_execute_count')).toBe(2);
    expect(scrape.sum('graphql_yoga_http_duration_count', { method: 'POST', statusCode: '200' })).toBe(2);
    expect(scrape.text).not.toContain('Chosen');
    expect(scrape.series.some((series) => 'operationName' in series.labels || 'url' in series.labels)).toBe(false);
  });

  it('counts a document that fails validation as an error of the validate phase, and leaves introspection out', async () => {
    const scrape = await run(createMetrics({ processMetrics: false }), ['{ nope }', '{ __schema { types { name } } }']);
    expect(scrape.sum('graphql_envelop_error_result', { phase: 'validate' })).toBe(1);
    expect(scrape.sum('graphql_envelop_phase_parse_count')).toBe(1);
    expect(scrape.sum('graphql_envelop_request')).toBe(0);
  });
});
