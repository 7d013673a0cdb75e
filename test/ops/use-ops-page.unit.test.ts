/**
 * useOpsPage (with createOpsAccess), in process: the redirect, the Basic challenge, methods, the
 * page's assets under a strict CSP, and /ops/data read from the metrics registry at the clock's time.
 * In-process specs are `<plugin>.unit.test.ts` beside the area's other tests (test/support/yoga.ts).
 */
import { describe, expect, it } from 'vitest';
import { useRoutes } from '../../src/http/use-routes';
import { createMetrics } from '../../src/observability/metrics';
import { createOpsAccess, type OpsAccessOptions } from '../../src/ops/access';
import type { OpsSnapshot } from '../../src/ops/snapshot';
import { useOpsPage } from '../../src/ops/use-ops-page';
import { fromAddress, yogaWith } from '../support/yoga';

const TOKEN = 'ops-token-for-the-spec-0123456789';
const NOW = Date.UTC(2030, 0, 2, 3, 4, 5);
const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`ops:${password}`).toString('base64')}` });
const loopback = fromAddress('127.0.0.1');

function opsPage(access: OpsAccessOptions) {
  const metrics = createMetrics({ processMetrics: false });
  metrics.cacheLookup('pdf', 'hit', 3);
  metrics.cacheLookup('pdf', 'miss');
  metrics.graphqlError('RATE_LIMITED');
  metrics.upstreamRequest('sandbox', 'getStatements', 'ok', 0.02);
  metrics.watchCircuits(() => [['production', 2]]);
  return yogaWith([useOpsPage({ metrics, access: createOpsAccess(access), clock: () => NOW }), useRoutes()]);
}

describe('useOpsPage with OPS_TOKEN', () => {
  it('redirects /ops to /ops/ (keeping the query) before asking for the token, so Basic credentials stay scoped to /ops/', async () => {
    const answer = await opsPage({ token: TOKEN, trustProxy: 0 }).fetch('/ops?range=5m', { redirect: 'manual' });
    expect(answer.status).toBe(308);
    expect(answer.headers.get('location')).toBe('/ops/?range=5m');
    expect(answer.headers.get('www-authenticate')).toBeNull();
  });

  it('answers a request without the token, or with a wrong one, with 401 UNAUTHENTICATED and a Basic challenge (the browser asks)', async () => {
    const page = opsPage({ token: TOKEN, trustProxy: 0 });
    for (const headers of [{}, basic('wrong'), { authorization: `Bearer ${TOKEN}-` }]) {
      for (const path of ['/ops/', '/ops/data', '/ops/ops.js']) {
        const answer = await page.fetch(path, { headers }, loopback);
        expect(answer.status, path).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe('Basic realm="statement-gateway ops", charset="UTF-8"');
        expect(answer.headers.get('cache-control')).toBe('no-store');
        expect(await answer.text()).toBe('{"errors":[{"message":"The ops page needs its token.","extensions":{"code":"UNAUTHENTICATED"}}]}');
      }
    }
  });

  it('serves the page, its script, styles and Chart.js with the token as Basic password or Bearer, under a CSP allowing the gateway only', async () => {
    const page = opsPage({ token: TOKEN, trustProxy: 0 });
    const expected = { '/ops/': 'text/html', '/ops/ops.js': 'text/javascript', '/ops/ops.css': 'text/css', '/ops/chart.js': 'text/javascript' };
    for (const [path, type] of Object.entries(expected)) {
      for (const headers of [basic(TOKEN), { authorization: `Bearer ${TOKEN}` }]) {
        const answer = await page.fetch(path, { headers }, fromAddress('203.0.113.9'));
        expect(answer.status, path).toBe(200);
        expect(answer.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
        expect(answer.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self';.* frame-ancestors 'none'$/);
        expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
        expect(answer.headers.get('cache-control')).toBe('no-store');
        expect((await answer.text()).length).toBeGreaterThan(100);
      }
    }
  });

  it('refuses methods other than GET and HEAD with 405 and Allow: GET, HEAD', async () => {
    const answer = await opsPage({ token: TOKEN, trustProxy: 0 }).fetch('/ops/data', { method: 'POST', headers: basic(TOKEN) });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, HEAD');
    expect(await answer.json()).toEqual({ errors: [{ message: 'Only GET is allowed here.', extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('answers an unknown file under /ops/ with the routes\' 404', async () => {
    expect((await opsPage({ token: TOKEN, trustProxy: 0 }).fetch('/ops/secrets.txt', { headers: basic(TOKEN) })).status).toBe(404);
  });
});

describe('useOpsPage /ops/data', () => {
  it('reports the registry\'s counts at the clock\'s time, with the answering instance', async () => {
    const answer = await opsPage({ trustProxy: 0 }).fetch('/ops/data', {}, loopback);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const snapshot = (await answer.json()) as OpsSnapshot;
    expect(snapshot.at).toBe(NOW);
    expect(snapshot.instance).toMatch(new RegExp(`^[0-9a-f]{8}-${NOW.toString(36)}$`));
    expect(snapshot.caches.pdf).toEqual({ hit: 3, miss: 1, stale: 0 });
    expect(snapshot.errors).toEqual({ RATE_LIMITED: 1 });
    expect(snapshot.upstream).toMatchObject([{ environment: 'sandbox', operation: 'getStatements', calls: { ok: 1, error: 0, timeout: 0 } }]);
  });

  it('reports each environment\'s circuit state (0 closed, 1 half-open, 2 open)', async () => {
    const snapshot = (await (await opsPage({ trustProxy: 0 }).fetch('/ops/data', {}, loopback)).json()) as OpsSnapshot;
    expect(snapshot.circuits).toEqual({ sandbox: 0, production: 2 });
  });
});

describe('useOpsPage without OPS_TOKEN', () => {
  it('answers loopback clients and is 404, as an unknown path, to others and to requests through a proxy', async () => {
    const page = opsPage({ trustProxy: 0 });
    expect((await page.fetch('/ops/data', {}, loopback)).status).toBe(200);
    expect((await page.fetch('/ops/data', {}, fromAddress('198.51.100.7'))).status).toBe(404);
    expect((await page.fetch('/ops/data', { headers: { 'x-forwarded-for': '127.0.0.1' } }, loopback)).status).toBe(404);
    expect((await page.fetch('/ops', { redirect: 'manual' }, fromAddress('198.51.100.7'))).status).toBe(404);
  });
});
