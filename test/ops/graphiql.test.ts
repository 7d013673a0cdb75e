/**
 * GraphiQL offline (issue 19, the contract's "Browsers"): the page, its script, styles, fonts and
 * Monaco's workers all come from the gateway, under a CSP that allows nothing else. In Chromium
 * with every other host unreachable (and every request to one recorded), the page renders, reports
 * no CSP violation, and signs in and reads the session from the editor.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createYoga } from 'graphql-yoga';
import { chromium, type Browser as Chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_CSP, useGraphiQLPage } from '../../src/ops/graphiql/use-graphiql-page';
import { DEMO_ACCOUNT, seed } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const { gateway, sandbox } = useGatewayOnEmulators();
const HTML = { accept: 'text/html' };

let browser: Chromium | undefined;
beforeAll(async () => {
  // No name resolves but loopback's: "without internet", whatever the test machine has.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1'] });
});
afterAll(async () => {
  await browser?.close();
});

/** The page's asset URLs (link href, script src, the workers in its config), resolved. */
function assetUrls(html: string, page: string): string[] {
  const urls = [...html.matchAll(/(?:href|src)="([^"]+)"/g), ...html.matchAll(/"(?:editorWorkerService|json|graphql)":"([^"]+)"/g)].map((match) => match[1] ?? '');
  return urls.filter((url) => !url.startsWith('data:')).map((url) => new URL(url, page).href);
}

describe('GraphiQL', () => {
  it('serves its page at /graphql to browsers, under a CSP that allows scripts from the gateway only', async () => {
    const response = await fetch(`${gateway.current.url}/graphql`, { headers: HTML });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(GRAPHIQL_CSP);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>/); // no inline script: the options are a JSON data block
    expect(html).toContain('<title>Statement gateway</title>');
  });

  it('serves its script, styles and Monaco workers with their types, nosniff and a year of caching', async () => {
    const page = `${gateway.current.url}/graphql`;
    const urls = assetUrls(await (await fetch(page, { headers: HTML })).text(), page);
    expect(urls.map((url) => new URL(url).pathname.replace(/^\/graphiql\/[^/]+\//, ''))).toEqual(['graphiql.css', 'start.js', 'yoga-graphiql.umd.js', 'editor.worker.js', 'json.worker.js', 'graphql.worker.js']);
    for (const url of urls) {
      expect(new URL(url).origin, url).toBe(new URL(page).origin);
      const answer = await fetch(url);
      expect(answer.status, url).toBe(200);
      expect(answer.headers.get('content-type'), url).toBe(url.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      expect(answer.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
      expect(answer.headers.get('x-content-type-options'), url).toBe('nosniff');
      expect((await answer.arrayBuffer()).byteLength, url).toBeGreaterThan(100);
    }
    // The same for a signed-in browser: the files are public, whoever asks (no no-store).
    const withCookie = await fetch(urls[2] ?? '', { headers: { cookie: 'sgw_session=whatever' } });
    expect(withCookie.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const unknown = await fetch(new URL('graphiql/0.0.0/yoga-graphiql.umd.js', page));
    expect(unknown.status).toBe(404);
  });

  it('still answers GraphQL over GET to clients that do not ask for HTML', async () => {
    const answer = await fetch(`${gateway.current.url}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: 'application/json' } });
    expect(await answer.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('renders in Chromium from the gateway alone, without CSP violations, and signs in and reads the session from the editor', { timeout: 60_000 }, async () => {
    const origin = new URL(gateway.current.url).origin;
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    const elsewhere: string[] = [];
    const problems: string[] = [];
    await context.route('**', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      elsewhere.push(url);
      return route.abort('internetdisconnected');
    });
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy/i.test(message.text())) problems.push(message.text());
    });
    page.on('requestfailed', (request) => {
      const reason = request.failure()?.errorText ?? '';
      // The test's own navigations cancel what the page still loads (Monaco starts workers late).
      if (reason === 'net::ERR_ABORTED' && new URL(request.url()).origin === origin) return;
      problems.push(`failed: ${request.url()} ${reason}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });
    /** Opens GraphiQL with a query (its `?query=`), runs it, and waits for an answer that says `expected`. */
    const run = async (query: string, expected: string): Promise<string> => {
      await page.goto(`${gateway.current.url}/graphql?query=${encodeURIComponent(query)}`);
      await page.locator('.graphiql-execute-button').click();
      await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 10_000 }).toContain(expected);
      return page.locator('.graphiql-response').innerText();
    };
    try {
      await page.goto(`${gateway.current.url}/graphql`);
      // Nothing was asked of another host (checked first: Yoga's CDN page would wait here forever).
      await page.locator('.graphiql-query-editor .monaco-editor').waitFor({ timeout: 15_000 }).catch(() => undefined);
      expect(elsewhere).toEqual([]);
      expect(problems).toEqual([]);
      await page.locator('.graphiql-query-editor .monaco-editor').waitFor({ timeout: 1_000 });
      expect(await page.evaluate(() => typeof (window as unknown as { YogaGraphiQL?: unknown }).YogaGraphiQL)).toBe('object');
      expect(await page.locator('body').innerText()).not.toContain('Loading');
      // Monaco's workers started from the gateway (by URL, not as blob: copies of a CDN's).
      await expect.poll(() => page.workers().map((worker) => new URL(worker.url()).pathname.split('/').pop()).sort(), { timeout: 10_000 }).toEqual(['editor.worker.js', 'graphql.worker.js', 'json.worker.js']);
      // The headers editor starts with the X-CSRF header that cookie requests need.
      await expect.poll(() => page.locator('.graphiql-editor-tool').innerText()).toMatch(/"X-CSRF":\s"1"/); // Monaco's spaces are no-break spaces
      // The editor opens on a ready sign-in and a first read, not on Yoga's welcome text.
      const editor = () => page.locator('.graphiql-query-editor .view-lines').innerText();
      await expect.poll(editor).toMatch(/mutation\sLogin\s\{/);
      expect(await editor()).toMatch(/query\sStatements\s\{/);
      expect(await editor()).not.toContain('Welcome');

      // The X-CSRF header and the same-origin cookie: login, then the session it opened.
      const login = await run('mutation { login(email: "demo@example.com", password: "demo-password-0123456789") { uid } }', '"login"');
      // A query in the URL wins over the starter document.
      expect(await editor()).toMatch(/^mutation\s\{\slogin/);
      expect(login).toMatch(/"uid":\s"demo@example.com"/);
      const session = await run('{ __typename session { uid } }', '"__typename"');
      expect(session).toMatch(/"uid":\s"demo@example.com"/);
      // The GraphQL worker runs (under its own CSP): it marks a field the schema does not have.
      await page.goto(`${gateway.current.url}/graphql?query=${encodeURIComponent('{ noSuchField }')}`);
      await page.locator('.graphiql-query-editor .squiggly-error').first().waitFor({ timeout: 10_000 });

      expect(elsewhere).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('runs its starter document as it opens: Login, then Statements, from the operations menu', { timeout: 30_000 }, async () => {
    await seed(sandbox.url, DEMO_ACCOUNT.email, 'Fw2', 2, 'graphiql-demo-');
    const context = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(`${gateway.current.url}/graphql`);
      await page.locator('.graphiql-query-editor .monaco-editor').waitFor({ timeout: 15_000 });
      // Two operations: the run button asks which one.
      await page.locator('.graphiql-execute-button').click();
      await page.getByRole('menuitem', { name: 'Login' }).click();
      await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 10_000 }).toMatch(/"uid":\s"demo@example.com"/);
      // Then Statements, with the cookie the login set.
      await page.locator('.graphiql-execute-button').click();
      await page.getByRole('menuitem', { name: 'Statements' }).click();
      await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 10_000 }).toContain('graphiql-demo-1');
      // The docs' screenshot (docs/graphiql.png with GRAPHIQL_SCREENSHOT=docs/graphiql.png).
      const shot = await page.screenshot();
      expect(shot.subarray(1, 4).toString()).toBe('PNG');
      writeFileSync(process.env.GRAPHIQL_SCREENSHOT ?? path.join(mkdtempSync(path.join(tmpdir(), 'graphiql-')), 'graphiql.png'), shot);
    } finally {
      await context.close();
    }
  });
});

describe('useGraphiQLPage', () => {
  it('escapes its title and options so that they cannot end the page\'s script element', async () => {
    const yoga = createYoga({ plugins: [useGraphiQLPage({ title: '</script><script>alert(1)</script>', headers: { 'X-Evil': '</script><img src=x onerror=alert(1)>' } })], graphiql: false });
    const html = await (await yoga.fetch('http://gateway.test/graphql', { headers: HTML })).text();
    expect(html.match(/<script/g)).toHaveLength(3);
    expect(html).not.toContain('<img');
    expect(html).toContain('<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>');
  });
});
