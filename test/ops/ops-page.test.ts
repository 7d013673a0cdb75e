/**
 * `/ops` in a real browser (Debian's Chromium through Playwright) while traffic runs: the charts
 * render and show non-zero definitions and PDF hit rates. Access: the token when OPS_TOKEN is set
 * (HTTP Basic or Bearer), loopback only without it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser as Chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInUser } from '../support/cache';
import { useEmulator } from '../support/emulator';
import { startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGatewayOnEmulators, type TestGateway } from '../support/gateway';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TOKEN = 'ops-token-for-the-test-0123456789';
const { sandbox, gateway } = useGatewayOnEmulators({ OPS_TOKEN: TOKEN });

let browser: Chromium | undefined;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});
afterAll(async () => {
  await browser?.close();
});

/** Reads that exercise every cache: definitions, statement reads, PDFs cold then warm. */
async function traffic(until: number): Promise<number> {
  const user = await signedInUser(gateway.current.url, sandbox.url, { count: 4 });
  let requests = 0;
  while (Date.now() < until) {
    for (const query of [
      '{ statementDefinitions { definitions { identifier } } }',
      '{ getStatements { statements { nodes { otxId } } } }',
      '{ getStatements { statements { nodes { otxId pdf } } } }',
    ]) {
      const answer = await user.browser.graphql(query);
      if (answer.codes.length) throw new Error(`traffic failed: ${answer.codes.join()}`);
      requests++;
    }
    // A refresh past the read cache: a miss (`bypass`) in every interval.
    const fresh = await user.browser.graphql('{ getStatements { statements { nodes { otxId } } } }', {}, { headers: { 'cache-control': 'no-cache' } });
    if (fresh.codes.length) throw new Error(`traffic failed: ${fresh.codes.join()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return requests;
}

describe('/ops', () => {
  it('needs the token when OPS_TOKEN is set: Basic (the browser asks) or Bearer', async () => {
    const url = `${gateway.current.url}/ops/data`;
    const none = await fetch(url);
    // A browser that has Basic credentials for the page and sends them elsewhere is not refused
    // as a service account: the request is simply anonymous.
    const login = await fetch(`${gateway.current.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf': '1', authorization: `Basic ${Buffer.from(`ops:${TOKEN}`).toString('base64')}` },
      body: JSON.stringify({ query: 'mutation { login(email: "demo@example.com", password: "demo-password-0123456789") { uid } }' }),
    });
    expect(((await login.json()) as { data?: { login?: { uid?: string } } }).data?.login?.uid).toBe('demo@example.com');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    expect(await none.text()).not.toContain('caches');
    const wrong = await fetch(url, { headers: { authorization: `Basic ${Buffer.from('ops:not-the-token').toString('base64')}` } });
    expect(wrong.status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    const bearer = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(bearer.status).toBe(200);
    const data = (await bearer.json()) as { instance: string; caches: { pdf: unknown } };
    expect(data.caches.pdf).toBeDefined();
    expect(data.instance).toMatch(/^[0-9a-f]{8}-/);
    const basic = { authorization: `Basic ${Buffer.from(`anyone:${TOKEN}`).toString('base64')}` };
    // /ops redirects to /ops/, so the browser scopes the Basic credentials to /ops/.
    const redirect = await fetch(`${gateway.current.url}/ops?every=1`, { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/ops/?every=1');
    const page = await fetch(`${gateway.current.url}/ops/`, { headers: basic });
    expect(page.status).toBe(200);
    expect(await page.text()).not.toMatch(/(src|href)="\//);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('renders its charts in Chromium while traffic runs, with non-zero definitions and PDF hit rates', async () => {
    const context = await browser!.newContext({ httpCredentials: { username: 'ops', password: TOKEN }, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    try {
      const running = traffic(Date.now() + 7_000);
      await page.goto(`${gateway.current.url}/ops?every=1`);
      const requests = await running;
      expect(requests).toBeGreaterThan(10);
      // Two more samples after the traffic, so every chart has seen it.
      await page.waitForFunction(() => Number(document.getElementById('tile-hit-pdf')?.dataset.value) > 0, undefined, { timeout: 10_000 });
      await page.waitForTimeout(2_200);

      const tiles = await page.evaluate(() => Object.fromEntries(['definitions', 'statements', 'pdf'].map((cache) => [cache, Number(document.getElementById(`tile-hit-${cache}`)?.dataset.value)])));
      expect(tiles.definitions).toBeGreaterThan(0);
      expect(tiles.pdf).toBeGreaterThan(0);
      expect(await page.textContent('#tile-circuits')).toBe('closed');

      type ChartState = { id: string; labels: number; datasets: Record<string, (number | null)[]>; painted: number };
      const charts = await page.evaluate(() => {
        const chartApi = (window as unknown as { Chart: { getChart(canvas: HTMLCanvasElement): { data: { labels: unknown[]; datasets: { label: string; data: (number | null)[] }[] } } | undefined } }).Chart;
        return [...document.querySelectorAll('canvas')].map((canvas) => {
          const chart = chartApi.getChart(canvas);
          const pixels = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? new Uint8ClampedArray();
          let painted = 0;
          for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) painted++;
          return {
            id: canvas.id,
            labels: chart?.data.labels.length ?? -1,
            datasets: Object.fromEntries((chart?.data.datasets ?? []).map((dataset) => [dataset.label, dataset.data])),
            painted,
          } satisfies ChartState;
        });
      });
      expect(charts.map((chart) => chart.id)).toEqual(['chart-hit-rate', 'chart-misses', 'chart-latency', 'chart-upstream', 'chart-errors']);
      for (const chart of charts.slice(0, 4)) {
        expect(chart.labels, chart.id).toBeGreaterThan(0);
        expect(chart.painted, `${chart.id} has pixels`).toBeGreaterThan(1_000);
      }
      const positive = (values: (number | null)[] | undefined) => (values ?? []).some((value) => value !== null && value > 0);
      const hitRate = charts[0]!;
      expect(positive(hitRate.datasets.definitions), 'definitions hit rate over time').toBe(true);
      expect(positive(hitRate.datasets.pdf), 'PDF hit rate over time').toBe(true);
      expect(positive(charts[1]!.datasets.bypass), 'misses by reason (bypass)').toBe(true);
      expect(positive(charts[2]!.datasets.p50), 'upstream p50').toBe(true);
      expect(positive(charts[3]!.datasets.ok), 'upstream calls').toBe(true);
      expect(problems).toEqual([]);

      const shot = await page.screenshot({ fullPage: true });
      expect(shot.subarray(1, 4).toString()).toBe('PNG');
      const target = process.env.OPS_SCREENSHOT ?? path.join(mkdtempSync(path.join(tmpdir(), 'ops-')), 'ops-page.png');
      writeFileSync(target, shot);
    } finally {
      await context.close();
    }
  });
});

describe('the purge form of /ops', () => {
  it('runs a dry run first, showing what would go, then the purge of the same, showing what went', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 3 });
    for (const query of ['{ getStatements { statements { nodes { otxId } } } }', '{ getStatements { statements { nodes { otxId pdf } } } }']) expect((await user.browser.graphql(query)).codes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const context = await browser!.newContext({ httpCredentials: { username: 'ops', password: TOKEN }, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await page.goto(`${gateway.current.url}/ops/?every=1`);
      expect(await page.isDisabled('#purge-run')).toBe(true);
      await page.selectOption('select[name=scope]', 'identity');
      await page.fill('input[name=uid]', user.email);
      await page.fill('input[name=reason]', 'browser test: changed in the upstream app');
      await page.click('button[name=dry]');
      await page.waitForSelector('#purge-result[data-state="dry-run"]');
      const purged = async () => JSON.parse((await page.getAttribute('#purge-result', 'data-purged')) ?? 'null') as unknown;
      expect(await purged()).toEqual({ definitions: 0, statements: 1, pdfs: 3 });
      expect(await page.textContent('#purge-result')).toMatch(/would drop 0 definitions, 1 statement reads, 3 PDFs/);
      // Still cached: a dry run drops nothing.
      const again = await user.browser.graphql('{ getStatements { statements { nodes { otxId } } } }');
      expect(again.headers.get('age')).not.toBeNull();

      // A change after the dry run asks for another.
      await page.fill('input[name=reason]', 'browser test: changed in the upstream app, really');
      expect(await page.isDisabled('#purge-run')).toBe(true);
      await page.click('button[name=dry]');
      await page.waitForSelector('#purge-run:not([disabled])');
      await page.click('#purge-run');
      await page.waitForSelector('#purge-result[data-state="purged"]');
      expect(await purged()).toEqual({ definitions: 0, statements: 1, pdfs: 3 });
      expect(await page.textContent('#purge-result')).toMatch(/Purged 0 definitions, 1 statement reads, 3 PDFs/);
      const after = await user.browser.graphql('{ getStatements { statements { nodes { otxId } } } }');
      expect(after.headers.get('age')).toBeNull();
      expect(problems).toEqual([]);
      await page.waitForTimeout(1_200);
      const shot = await page.screenshot({ fullPage: true });
      writeFileSync(process.env.OPS_PURGE_SCREENSHOT ?? path.join(mkdtempSync(path.join(tmpdir(), 'ops-')), 'ops-purge.png'), shot);
    } finally {
      await context.close();
    }
  });
});

describe('/ops across a reload', () => {
  it('says what each tile counts and that p50/p95 are bucket estimates, and keeps its history across a reload (sessionStorage)', async () => {
    const context = await browser!.newContext({ httpCredentials: { username: 'ops', password: TOKEN } });
    const page = await context.newPage();
    const stored = () => page.evaluate(() => (JSON.parse(sessionStorage.getItem('sgw-ops-histories') ?? '[]') as [string, unknown[]][]).map(([, samples]) => samples.length));
    const hitRateLabels = () =>
      page.evaluate(() => {
        const chartApi = (window as unknown as { Chart: { getChart(canvas: HTMLCanvasElement): { data: { labels: unknown[] } } | undefined } }).Chart;
        return chartApi.getChart(document.getElementById('chart-hit-rate') as HTMLCanvasElement)?.data.labels.length ?? -1;
      });
    try {
      await page.goto(`${gateway.current.url}/ops?every=1`);
      const scopes = await page.locator('.tile').evaluateAll((tiles) => tiles.map((tile) => [tile.querySelector('.label')?.textContent, tile.querySelector('.scope')?.textContent]));
      expect(scopes).toEqual([
        ['Definitions hit rate', 'since start'],
        ['Statements hit rate', 'since start'],
        ['PDF hit rate', 'since start'],
        ['Requests/s', 'last interval'],
        ['Upstream calls failed', 'total since start'],
        ['Rate-limited', 'total since start'],
        ['Upstream circuits', 'now'],
      ]);
      expect(await page.locator('figcaption', { hasText: 'p50 and p95' }).textContent()).toContain("estimates from the histogram's buckets");
      await expect.poll(async () => (await stored())[0] ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      const before = (await stored())[0]!;
      await page.reload();
      await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Updated'), undefined, { timeout: 5_000 });
      // One poll after the reload: its sample joins the kept ones (without them, no interval to chart yet).
      expect(await hitRateLabels()).toBeGreaterThanOrEqual(before);
      expect((await stored())[0]).toBeGreaterThan(before);
    } finally {
      await context.close();
    }
  });
});

describe('/ops without OPS_TOKEN', () => {
  const emulator = useEmulator('sandbox');
  const production = useEmulator('production');
  let open: TestGateway | undefined;
  beforeAll(async () => {
    open = await startTestGateway({ HOST: '0.0.0.0', UPSTREAM_SANDBOX_URL: emulator.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY });
  });
  afterAll(async () => {
    await open?.stop();
  });

  it('answers loopback clients, and 404 to any other address (even one claiming loopback in X-Forwarded-For)', async () => {
    const port = new URL(open!.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/ops`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/ops/data`)).status).toBe(200);
    const external = Object.values(networkInterfaces()).flat().find((entry) => entry && entry.family === 'IPv4' && !entry.internal);
    expect(external, 'this test needs a non-loopback IPv4 interface').toBeDefined();
    for (const route of ['/ops', '/ops/', '/ops/data', '/ops/chart.js']) {
      const answer = await fetch(`http://${external!.address}:${port}${route}`, { headers: { 'x-forwarded-for': '127.0.0.1' } });
      expect(answer.status, route).toBe(404);
      // Through a proxy on this host (loopback socket, X-Forwarded-For set): not loopback either.
      const proxied = await fetch(`http://127.0.0.1:${port}${route}`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(proxied.status, `${route} via a local proxy`).toBe(404);
    }
  });
});
