/**
 * `/ops`: a small live page of cache hit rates, upstream latency and errors, for someone without
 * Grafana. `/ops/data` is its JSON (cumulative counts from the metrics registry); the page polls it
 * and draws with Chart.js, served from the gateway itself (no CDN, a strict CSP).
 *
 * Access: with OPS_TOKEN set, HTTP Basic (any user name, the token as password: the browser asks)
 * or `Authorization: Bearer <token>`; without it, loopback clients only (the socket's own address,
 * never X-Forwarded-For), and 404 to everyone else. A request that came through a proxy
 * (TRUST_PROXY set, or an X-Forwarded-For header) is not treated as loopback: a proxy on the same
 * host would otherwise open the page to everyone.
 *
 * The page lives at `/ops/` (`/ops` redirects there) with relative asset URLs, so the browser's
 * Basic credentials are scoped to `/ops/` and not sent to `/graphql`.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'graphql-yoga';
import { jsonResponse } from '../../http/json-response';
import type { GatewayMetrics } from '../metrics';
import { opsSnapshot } from './snapshot';

export interface OpsPageOptions {
  readonly metrics: GatewayMetrics;
  readonly token?: string;
  readonly trustProxy: number;
  readonly clock: () => number;
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
    ['/ops/ops.css', { body: own('ops.css'), type: 'text/css; charset=utf-8' }],
    ['/ops/chart.js', { body: readFileSync(path.join(chartDir, 'chart.umd.min.js'), 'utf8'), type: 'text/javascript; charset=utf-8' }],
  ]);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The token a request presents: the Basic password or the Bearer token. */
function presentedToken(authorization: string | null): string | undefined {
  if (!authorization) return undefined;
  const [scheme = '', value = ''] = authorization.trim().split(/\s+/, 2);
  if (/^bearer$/i.test(scheme)) return value;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

export function useOpsPage({ metrics, token, trustProxy, clock }: OpsPageOptions): Plugin {
  const assets = loadAssets();
  const expected = token ? digest(token) : undefined;
  // Which process answered: the page keeps one history per replica (counters are per process).
  const instance = `${randomBytes(4).toString('hex')}-${clock().toString(36)}`;

  const access = (request: Request, serverContext: unknown): 'ok' | 'unauthorized' | 'hidden' => {
    if (expected) {
      const presented = presentedToken(request.headers.get('authorization'));
      return presented !== undefined && timingSafeEqual(digest(presented), expected) ? 'ok' : 'unauthorized';
    }
    if (trustProxy > 0 || request.headers.has('x-forwarded-for')) return 'hidden';
    const socket = (serverContext as { req?: IncomingMessage } | undefined)?.req?.socket.remoteAddress;
    return isLoopback(socket) ? 'ok' : 'hidden';
  };

  return {
    async onRequest(payload) {
      const { url, request, serverContext } = payload;
      const endResponse = (response: Response) => payload.endResponse(response);
      if (url.pathname !== '/ops' && !url.pathname.startsWith('/ops/')) return;
      const verdict = access(request, serverContext);
      if (verdict === 'hidden') return; // the routes plugin answers 404, as for any unknown path
      // Before the challenge: a 401 at /ops would scope the browser's credentials to the whole site.
      if (url.pathname === '/ops') {
        endResponse(new Response(null, { status: 308, headers: { location: `/ops/${url.search}`, 'cache-control': 'no-store' } }));
        return;
      }
      if (verdict === 'unauthorized') {
        endResponse(jsonResponse(401, { errors: [{ message: 'The ops page needs its token.', extensions: { code: 'UNAUTHENTICATED' } }] }, { 'www-authenticate': 'Basic realm="statement-gateway ops", charset="UTF-8"', 'cache-control': 'no-store' }));
        return;
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(jsonResponse(405, { errors: [{ message: 'Only GET is allowed here.', extensions: { code: 'BAD_REQUEST' } }] }, { allow: 'GET, HEAD' }));
        return;
      }
      if (url.pathname === '/ops/data') {
        endResponse(jsonResponse(200, await opsSnapshot(metrics.registry, clock(), instance), SECURITY_HEADERS));
        return;
      }
      const asset = assets.get(url.pathname);
      if (!asset) return;
      endResponse(new Response(asset.body, { status: 200, headers: { ...SECURITY_HEADERS, 'content-type': asset.type } }));
    },
  };
}
