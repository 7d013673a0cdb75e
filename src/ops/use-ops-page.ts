/**
 * `/ops`: a small live page of cache hit rates, upstream latency and errors, for someone without
 * Grafana. `/ops/data` is its JSON (cumulative counts from the metrics registry); the page polls it
 * and draws with Chart.js, served from the gateway itself (no CDN, a strict CSP).
 *
 * Access (access.ts, shared with /metrics): with OPS_TOKEN set, HTTP Basic (the browser asks) or
 * Bearer; without it, loopback clients only, and 404 to everyone else.
 *
 * The page lives at `/ops/` (`/ops` redirects there) with relative asset URLs, so the browser's
 * Basic credentials are scoped to `/ops/` and not sent to `/graphql`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from '../errors';
import { jsonResponse } from '../errors/json-response';
import type { GatewayMetrics } from '../observability/metrics';
import type { OpsVerdict } from './access';
import { useOpsEndpoint, type OpsEndpoint } from './endpoint';
import { opsSnapshot } from './snapshot';
import type { UpstreamSchemaStatuses } from './upstream-schema-watch';

export interface OpsPageOptions {
  readonly metrics: GatewayMetrics;
  /** Who may see the page (createOpsAccess: OPS_TOKEN, or loopback only). */
  readonly access: (request: Request, serverContext: unknown) => OpsVerdict;
  readonly clock: () => number;
  /** The last upstream schema check per environment, for the page's panel (upstream-schema-watch.ts). */
  readonly upstreamSchema?: () => UpstreamSchemaStatuses;
}

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function loadAssets(): Map<string, { body: string; type: string }> {
  const own = (name: string) => readFileSync(path.join(__dirname, 'assets', name), 'utf8');
  const chartDir = path.dirname(createRequire(__filename).resolve('chart.js'));
  return new Map([
    ['/ops/', { body: own('ops.html'), type: 'text/html; charset=utf-8' }],
    ['/ops/ops.js', { body: own('ops.js'), type: 'text/javascript; charset=utf-8' }],
    ['/ops/ops-purge.js', { body: own('ops-purge.js'), type: 'text/javascript; charset=utf-8' }],
    ['/ops/ops.css', { body: own('ops.css'), type: 'text/css; charset=utf-8' }],
    ['/ops/chart.js', { body: readFileSync(path.join(chartDir, 'chart.umd.min.js'), 'utf8'), type: 'text/javascript; charset=utf-8' }],
  ]);
}

/** `/ops` and `/ops/...` (ops/endpoint.ts): on OPS_PORT when it is set, else on the traffic port. */
export function opsPageEndpoint({ metrics, access, clock, upstreamSchema }: OpsPageOptions): OpsEndpoint {
  const assets = loadAssets();
  // Which process answered: the page keeps one history per replica (counters are per process).
  const instance = `${randomBytes(4).toString('hex')}-${clock().toString(36)}`;
  const data = async () => jsonResponse(200, await opsSnapshot(metrics.registry, clock(), instance, upstreamSchema?.()), SECURITY_HEADERS);

  return (request, serverContext, url = new URL(request.url)) => {
    if (url.pathname !== '/ops' && !url.pathname.startsWith('/ops/')) return undefined;
    const verdict = access(request, serverContext);
    if (verdict === 'hidden') return undefined; // 404, as for any unknown path
    // Before the challenge: a 401 at /ops would scope the browser's credentials to the whole site.
    if (url.pathname === '/ops') return new Response(null, { status: 308, headers: { location: `/ops/${url.search}`, 'cache-control': 'no-store' } });
    if (verdict === 'unauthorized') {
      return errorResponse(401, 'UNAUTHENTICATED', 'The ops page needs its token.', { headers: { 'www-authenticate': 'Basic realm="statement-gateway ops", charset="UTF-8"' } });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') return errorResponse(405, 'BAD_REQUEST', 'Only GET is allowed here.', { headers: { allow: 'GET, HEAD' } });
    if (url.pathname === '/ops/data') return data();
    const asset = assets.get(url.pathname);
    return asset && new Response(asset.body, { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': asset.type } });
  };
}

/** The same, as a plugin of the Yoga pipeline. */
export function useOpsPage(options: OpsPageOptions): Plugin {
  return useOpsEndpoint(opsPageEndpoint(options));
}
