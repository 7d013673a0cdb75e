/**
 * The example frontend (examples/spa), built from its sources as its README says and driven in
 * Debian's Chromium against the real gateway and emulators: the whole flow from a page on another
 * port of the same site, the dev proxy (Host kept, and Host rewritten), and a foreign origin. The
 * gateway trusts the example's generated manifest only (TRUSTED_DOCUMENTS_ONLY): the page sends
 * document ids, never a query text.
 * SPA_SCREENSHOTS=<dir> keeps the screenshots (docs/ holds the committed ones).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser as Chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT, seed, useEmulator } from '../support/emulator';
import { TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGateway } from '../support/gateway';
import { pdfText } from '../support/pdf-text';
import { buildExample, generatedFiles, SPA_ROOT, startDevServer, type DevServer } from '../support/spa-example';
import { serveStatic, type StaticServer } from '../support/static-server';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const scratch = mkdtempSync(path.join(tmpdir(), 'spa-'));
const SHOTS = process.env.SPA_SCREENSHOTS ?? path.join(scratch, 'screenshots');
const MANIFEST = path.join(SPA_ROOT, 'src/gql/persisted-documents.json');
/** The id of the example's document named `name` in its manifest. */
function documentIdOf(name: string): string {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, string>;
  const found = Object.entries(manifest).find(([, text]) => new RegExp(`^(query|mutation) ${name}\\b`).test(text));
  if (!found) throw new Error(`no ${name} in ${MANIFEST}`);
  return found[0];
}

// The page's hosts start first: the gateway allows the first one's origin (same site: 127.0.0.1,
// another port), never the foreign one's.
let allowed: StaticServer | undefined;
let foreign: StaticServer | undefined;
beforeAll(async () => {
  [allowed, foreign] = await Promise.all([serveStatic(), serveStatic()]);
});
const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
/** Origins added to ALLOWED_ORIGINS, and the port kept, when a test restarts the gateway. */
const restart: { origins: string[]; port?: string; withoutManifest?: boolean; idleTimeout?: string } = { origins: [] };
const gateway = useGateway(() => ({
  PORT: restart.port ?? '0',
  UPSTREAM_SANDBOX_URL: sandbox.url,
  UPSTREAM_PRODUCTION_URL: production.url,
  REDIS_URL: TEST_REDIS_URL,
  CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
  // The allowed page also under the name localhost: allowed, but another site than 127.0.0.1.
  ALLOWED_ORIGINS: [allowed?.origin, allowed?.origin.replace('127.0.0.1', 'localhost'), ...restart.origins].join(','),
  // Two failed logins per address and e-mail in 2 s, so the RATE_LIMITED wait is short enough to watch.
  RATE_LIMIT_LOGIN: '2/2s',
  ...(restart.idleTimeout ? { SESSION_IDLE_TIMEOUT: restart.idleTimeout } : {}),
  ...(restart.withoutManifest ? {} : { TRUSTED_DOCUMENTS_FILE: MANIFEST, TRUSTED_DOCUMENTS_ONLY: 'true' }),
}));
let browser: Chromium | undefined;
beforeAll(async () => {
  const [started] = await Promise.all([
    gateway.start(),
    chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] }).then((launched) => (browser = launched)),
  ]);
  const dist = path.join(scratch, 'dist');
  await buildExample({ gatewayUrl: started.url, outDir: dist, cacheDir: path.join(scratch, 'vite') });
  allowed!.root = dist;
  foreign!.root = dist;
}, 40_000);
afterAll(async () => {
  await Promise.all([browser?.close(), allowed?.close(), foreign?.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

/** A fresh browser profile on `url` (saying `userAgent`, if given), collecting what the page logs as errors. */
async function open(url: string, userAgent?: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser!.newContext({ viewport: { width: 1100, height: 640 }, ...(userAgent ? { userAgent } : {}) });
  context.setDefaultTimeout(5_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(url);
  await page.locator('#login').waitFor();
  return { context, page, problems };
}

async function logIn(page: Page, email: string = DEMO_ACCOUNT.email, password: string = DEMO_ACCOUNT.password): Promise<void> {
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await page.selectOption('select[name=environment]', 'SANDBOX');
  await page.click('#login button[type=submit]');
}

const message = (page: Page) => page.locator('#message');
const screenshot = async (page: Page, name: string) => {
  mkdirSync(SHOTS, { recursive: true });
  writeFileSync(path.join(SHOTS, name), await page.screenshot());
};

describe('the example frontend (examples/spa)', () => {
  it('has its generated code up to date, with a persisted-documents manifest keyed by each document\'s SHA-256', async () => {
    const files = await generatedFiles();
    expect(files.map((file) => path.relative(SPA_ROOT, file.filename)).sort()).toEqual(['src/gql/gql.ts', 'src/gql/graphql.ts', 'src/gql/index.ts', 'src/gql/persisted-documents.json']);
    for (const file of files) expect(readFileSync(file.filename, 'utf8'), `${file.filename}: run npx graphql-codegen --config examples/spa/codegen.ts`).toBe(file.content);
    const manifest = JSON.parse(readFileSync(path.join(SPA_ROOT, 'src/gql/persisted-documents.json'), 'utf8')) as Record<string, string>;
    expect(Object.values(manifest).map((document) => /^(query|mutation) (\w+)/.exec(document)?.[2]).sort()).toEqual(['AddW2', 'EndSession', 'Login', 'Logout', 'LogoutEverywhere', 'Session', 'SessionLeft', 'Sessions', 'Statements', 'StatementsByUploader']);
    for (const [id, document] of Object.entries(manifest)) expect(id).toBe(createHash('sha256').update(document).digest('hex'));
  });

  // Its TypeScript check under its own tsconfig (DOM, bundler resolution) is spa-build.test.ts's
  // `npm run check` (codegen, then tsc): not run twice.

  it('logs in from another port of the same site, counts the session down, lists statements, opens and downloads a PDF, and logs out', async () => {
    const statements = await seed(sandbox.url, DEMO_ACCOUNT.email, 'Fw2', 3, 'spa-');
    const { context, page, problems } = await open(`${allowed!.origin}/`);
    const bodies: string[] = [];
    page.on('request', (request) => void (request.url().endsWith('/graphql') && request.method() === 'POST' && bodies.push(request.postData() ?? '')));
    try {
      await screenshot(page, 'spa-login.png');
      await logIn(page);
      await expect.poll(() => page.locator('#rows tr').count()).toBe(3);
      expect(await page.locator('#uid').textContent()).toBe(DEMO_ACCOUNT.email);
      expect(await page.locator('#login').isVisible()).toBe(false);
      expect(await page.locator('#rows').textContent()).toContain(statements[0]!.uploaderId);
      // The countdown runs from Session.idleExpiresInSeconds: 30 minutes of idle time by default.
      const left = Number(await page.locator('#countdown').getAttribute('data-idle-expires-in-seconds'));
      expect(left).toBeGreaterThan(30 * 60 - 10);
      expect(left).toBeLessThanOrEqual(30 * 60);
      expect(await page.locator('#countdown').textContent()).toMatch(/^Session ends in (29:[0-5]\d|30:00) without activity$/);
      await screenshot(page, 'spa-statements.png');

      // "Open PDF" is a plain link to GET /statements/{otxId}/pdf?inline=1 in a new tab.
      const pdfUrl = `${gateway.current.url}/statements/${encodeURIComponent(statements[0]!.otxId)}/pdf`;
      const [pdfTab] = await Promise.all([context.waitForEvent('page'), page.click('#rows tr:first-child a:text("Open PDF")')]);
      await pdfTab.waitForLoadState();
      expect(pdfTab.url()).toBe(`${pdfUrl}?inline=1`);
      // The same URL with this browser's cookie (the tab's own bytes are the PDF viewer's).
      const inline = await context.request.get(`${pdfUrl}?inline=1`);
      expect(inline.headers()['content-type']).toBe('application/pdf');
      expect(inline.headers()['content-disposition']).toBe(`inline; filename="fw2-${statements[0]!.uploaderId}.pdf"`);
      expect(await pdfText((await inline.body()).toString('base64'))).toContain('SANDBOX');
      if (process.env.SPA_SCREENSHOTS) {
        // Chromium's PDF viewer paints the page a moment after the load event.
        await pdfTab.waitForTimeout(2_000);
        await screenshot(pdfTab, 'spa-pdf.png');
      }
      await pdfTab.close();

      // "Download" is a plain link too: the browser saves the file under the gateway's name.
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#rows tr:first-child a:text("Download")')]);
      expect(download.url()).toBe(pdfUrl);
      expect(download.suggestedFilename()).toBe(`fw2-${statements[0]!.uploaderId}.pdf`);
      expect(readFileSync(await download.path()).subarray(0, 5).toString()).toBe('%PDF-');

      await page.click('#logout');
      await expect.poll(() => message(page).textContent()).toBe('You are logged out.');
      // The download's delayed session re-read (a second after the click) keeps the logout's message.
      await page.waitForTimeout(1_200);
      expect(await message(page).textContent()).toBe('You are logged out.');
      expect(await page.locator('#login').isVisible()).toBe(true);
      expect(await context.cookies(gateway.current.url)).toEqual([]);
      // Every request of the page named a trusted document; no query text left it.
      const sent = bodies.map((body) => JSON.parse(body) as Record<string, unknown>);
      // Login, Statements, Logout at least: the page's session re-reads depend on timing (the first
      // is sent before this listener, the download's only while still signed in); the PDFs are links.
      expect(sent.length).toBeGreaterThanOrEqual(3);
      for (const body of sent) {
        expect(body).toHaveProperty('documentId');
        expect(body).not.toHaveProperty('query');
      }
      // Refused after: the page's own fetch, with whatever cookie the browser still has; a query
      // text is refused before anything else.
      const after = await page.evaluate(async ({ url, statements }) => {
        const send = async (body: object) => {
          const response = await fetch(`${url}/graphql`, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'x-csrf': '1' }, body: JSON.stringify(body) });
          return { status: response.status, code: ((await response.json()) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code };
        };
        return [await send({ documentId: `sha256:${statements}`, variables: { first: 10 } }), await send({ query: '{ getStatements { errors } }' })];
      }, { url: gateway.current.url, statements: documentIdOf('Statements') });
      expect(after).toEqual([{ status: 401, code: 'UNAUTHENTICATED' }, { status: 400, code: 'PERSISTED_QUERY_ONLY' }]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows how old a list from the read cache is, and Refresh sends Cache-Control: no-cache to list a statement added elsewhere', async () => {
    const email = `refresh-${Date.now()}@example.com`;
    const password = 'a-long-enough-password-123';
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password })).status).toBe(201);
    await seed(sandbox.url, email, 'Fw2', 1, 'before-');
    const { context, page, problems } = await open(`${allowed!.origin}/`);
    const statementsId = documentIdOf('Statements');
    const cacheControls: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/graphql') && request.method() === 'POST' && (request.postData() ?? '').includes(statementsId)) cacheControls.push(request.headers()['cache-control']);
    });
    try {
      await logIn(page, email, password);
      await expect.poll(() => page.locator('#rows tr').count()).toBe(1);
      expect(await page.locator('#age').isVisible()).toBe(false);
      // Added behind the gateway's back: a reload is answered from the read cache, with its age.
      await seed(sandbox.url, email, 'Fw2', 1, 'after-');
      await page.reload();
      await expect.poll(() => page.locator('#age').textContent()).toMatch(/^\(as of \d+ s ago\)$/);
      expect(await page.locator('#rows tr').count()).toBe(1);
      await page.click('#refresh');
      await expect.poll(() => page.locator('#rows tr').count()).toBe(2);
      expect(await page.locator('#age').isVisible()).toBe(false);
      expect(cacheControls).toEqual([undefined, undefined, 'no-cache']);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('adds a W-2 with one Idempotency-Key per intent and lists it; the retry of an attempt whose answer was lost is answered from the first, not filed twice', async () => {
    const email = `add-${Date.now()}@example.com`;
    const password = 'a-long-enough-password-123';
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password })).status).toBe(201);
    const { context, page, problems } = await open(`${allowed!.origin}/`);
    const addId = documentIdOf('AddW2');
    const keys: (string | undefined)[] = [];
    page.on('request', (request) => void (request.postData()?.includes(addId) && keys.push(request.headers()['idempotency-key'])));
    // The first attempt reaches the gateway and the upstream; its answer is lost on the way back.
    let loseNext = true;
    await page.route('**/graphql', async (route) => {
      if (!loseNext || !route.request().postData()?.includes(addId)) return route.fallback();
      loseNext = false;
      await route.fetch();
      return route.abort('connectionreset');
    });
    const add = async (uploaderId: string) => {
      await page.fill('#add input[name=uploaderId]', uploaderId);
      await page.fill('#add input[name=recipientFirstName]', 'Ottilie');
      await page.fill('#add input[name=recipientLastName]', 'Quarshie');
      await page.fill('#add input[name=taxYear]', '2025');
      await page.click('#add button[type=submit]');
    };
    try {
      await logIn(page, email, password);
      await expect.poll(() => page.locator('#count').textContent()).toBe('0 statements');
      await add('spa-added-1');
      await expect.poll(() => message(page).textContent()).toMatch(/^NETWORK_ERROR: /);
      // The user clicks again: the same intent, the same key; the gateway answers with the kept answer.
      const [replay] = await Promise.all([page.waitForResponse((response) => response.request().postData()?.includes(addId) === true), page.click('#add button[type=submit]')]);
      expect(replay.headers()['idempotent-replayed']).toBe('true');
      await expect.poll(() => message(page).textContent()).toBe('spa-added-1 was already filed (the first attempt\'s answer).');
      expect(await message(page).getAttribute('class')).toBe('info');
      await expect.poll(() => page.locator('#rows tr').count()).toBe(1);
      expect(await page.locator('#rows tr:first-child').textContent()).toContain('spa-added-1');
      expect(await page.locator('#rows tr:first-child').textContent()).toContain('Ottilie Quarshie');
      // Another statement is another intent: a new key.
      await add('spa-added-2');
      await expect.poll(() => message(page).textContent()).toBe('Filed spa-added-2.');
      await expect.poll(() => page.locator('#rows tr').count()).toBe(2);
      expect(keys).toHaveLength(3);
      for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(keys[1]).toBe(keys[0]);
      expect(keys[2]).not.toBe(keys[0]);
      // The upstream heard of each W-2 once.
      const requests = await control<{ uid: string | null; operations?: string[] }[]>(sandbox.url, 'GET', '/__emulator/requests');
      expect(requests.body.filter((request) => request.uid === email && request.operations?.includes('addFw2Statements'))).toHaveLength(2);
      await screenshot(page, 'spa-added.png');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lists the user\'s browsers under "Your sessions", ends another one from here, and logs out everywhere', async () => {
    const email = `sessions-${Date.now()}@example.com`;
    const password = 'a-long-enough-password-123';
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password })).status).toBe(201);
    const laptop = await open(`${allowed!.origin}/`, 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36 (the laptop)');
    const phone = await open(`${allowed!.origin}/`, 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) Mobile/15E148 Safari/604.1 (the phone)');
    const rows = (page: Page) => page.locator('#session-rows tr');
    try {
      await logIn(phone.page, email, password);
      await expect.poll(() => rows(phone.page).count()).toBe(1);
      await logIn(laptop.page, email, password);
      await expect.poll(() => rows(laptop.page).count()).toBe(2);
      // This browser first, marked; the other with the User-Agent it logged in with, and an End button.
      expect(await rows(laptop.page).nth(0).getAttribute('data-current')).toBe('true');
      expect(await rows(laptop.page).nth(0).textContent()).toContain('(the laptop)');
      expect(await rows(laptop.page).nth(0).locator('button').count()).toBe(0);
      expect(await rows(laptop.page).nth(1).textContent()).toContain('(the phone)');
      expect(await laptop.page.locator('#session-count').textContent()).toBe('2 sessions');
      await screenshot(laptop.page, 'spa-sessions.png');

      // The phone is lost: ended from the laptop. Its next request finds the session gone.
      await control(sandbox.url, 'DELETE', '/__emulator/requests');
      await rows(laptop.page).nth(1).locator('button:text("End")').click();
      await expect.poll(() => message(laptop.page).textContent()).toBe('That session has ended: it is signed out.');
      await expect.poll(() => rows(laptop.page).count()).toBe(1);
      await phone.page.click('#refresh');
      await expect.poll(() => message(phone.page).textContent()).toBe('Your session has ended. Please log in again.');
      expect(await phone.page.locator('#sessions').isVisible()).toBe(false);

      // Found again, logged in again: "Log out other sessions" ends it, and keeps the laptop's.
      await logIn(phone.page, email, password);
      await expect.poll(() => rows(phone.page).count()).toBe(2);
      await laptop.page.click('#logout-others');
      await expect.poll(() => message(laptop.page).textContent()).toBe('Logged out 1 other session.');
      expect(await rows(laptop.page).count()).toBe(1);
      await phone.page.click('#refresh');
      await expect.poll(() => message(phone.page).textContent()).toBe('Your session has ended. Please log in again.');
      // Logged in once more; then "Log out everywhere" from the laptop ends both.
      await logIn(phone.page, email, password);
      await expect.poll(() => rows(phone.page).count()).toBe(2);
      await laptop.page.click('#refresh');
      await expect.poll(() => rows(laptop.page).count()).toBe(2);
      await laptop.page.click('#logout-everywhere');
      await expect.poll(() => message(laptop.page).textContent()).toBe('You are logged out everywhere (2 sessions ended).');
      expect(await laptop.page.locator('#login').isVisible()).toBe(true);
      expect(await laptop.context.cookies(gateway.current.url)).toEqual([]);
      await phone.page.click('#refresh');
      await expect.poll(() => message(phone.page).textContent()).toBe('Your session has ended. Please log in again.');
      // Each ended session was signed out upstream, once.
      const requests = await control<{ path: string; uid: string | null; status: number }[]>(sandbox.url, 'GET', '/__emulator/requests');
      expect(requests.body.filter((request) => request.path === '/v2/auth/sign_out' && request.uid === email).map((request) => request.status)).toEqual([200, 200, 200, 200]);
      expect([...laptop.problems, ...phone.problems]).toEqual([]);
    } finally {
      await Promise.all([laptop.context.close(), phone.context.close()]);
    }
  });

  it('goes back to the login form on UNAUTHENTICATED when the session ends elsewhere', async () => {
    const { context, page } = await open(`${allowed!.origin}/`);
    try {
      await logIn(page);
      await page.locator('#session-panel').waitFor();
      // Another tab of the same browser logs out: the session cookie is shared.
      const other = await context.newPage();
      await other.goto(`${allowed!.origin}/`);
      await other.click('#logout');
      await expect.poll(() => message(other).textContent()).toBe('You are logged out.');
      await page.click('#refresh');
      await expect.poll(() => message(page).textContent()).toBe('Your session has ended. Please log in again.');
      expect(await page.locator('#login').isVisible()).toBe(true);
      expect(await page.locator('#statements').isVisible()).toBe(false);
    } finally {
      await context.close();
    }
  });

  it('cannot keep a session when the page is on localhost and the gateway on 127.0.0.1 (other sites: the SameSite=Strict cookie is not sent), and says so', async () => {
    const { context, page } = await open(`${allowed!.origin.replace('127.0.0.1', 'localhost')}/`);
    try {
      const [login] = await Promise.all([page.waitForResponse((response) => response.url().endsWith('/graphql') && response.request().postData()?.includes(documentIdOf('Login')) === true), logIn(page)]);
      expect(login.status()).toBe(200);
      await expect.poll(() => message(page).textContent()).toContain('Logged in, but the browser did not send the session cookie back.');
      // A setup problem, shown as an error (not as information).
      expect(await message(page).getAttribute('class')).toBe('error');
      expect(await page.locator('#login').isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('logs the same person in and out three times in a row under a limit of two failed logins (successes are not counted)', async () => {
    const { context, page } = await open(`${allowed!.origin}/`);
    try {
      for (let round = 1; round <= 3; round++) {
        await logIn(page);
        await expect.poll(() => page.locator('#uid').textContent()).toBe(DEMO_ACCOUNT.email);
        await page.click('#logout');
        await expect.poll(() => message(page).textContent()).toBe('You are logged out.');
        await page.evaluate(() => (document.getElementById('message')!.textContent = ''));
      }
    } finally {
      await context.close();
    }
  });

  it('shows RATE_LIMITED and keeps the form disabled for extensions.retryAfterSeconds', async () => {
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email: 'limited@example.com', password: 'the-right-password-0123' });
    const { context, page } = await open(`${allowed!.origin}/`);
    try {
      for (let attempt = 1; attempt <= 2; attempt++) {
        await logIn(page, 'limited@example.com', `wrong-password-${attempt}`);
        await expect.poll(() => message(page).textContent()).toBe('Wrong e-mail or password.');
        await page.evaluate(() => (document.getElementById('message')!.textContent = ''));
      }
      const [refusal] = await Promise.all([page.waitForResponse((response) => response.url().endsWith('/graphql') && response.status() === 429), logIn(page, 'limited@example.com', 'the-right-password-0123')]);
      const refusedAt = Date.now();
      const wait = ((await refusal.json()) as { errors: { extensions: { retryAfterSeconds: number } }[] }).errors[0]!.extensions.retryAfterSeconds;
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(4);
      await expect.poll(() => message(page).textContent()).toBe(`Too many requests: try again in ${wait} s.`);
      expect(await page.locator('#login button[type=submit]').isDisabled()).toBe(true);
      await screenshot(page, 'spa-rate-limited.png');
      await expect.poll(() => page.locator('#login button[type=submit]').isDisabled(), { timeout: (wait + 2) * 1000, interval: 100 }).toBe(false);
      expect(Date.now() - refusedAt).toBeGreaterThan((wait - 1) * 1000);
      await logIn(page, 'limited@example.com', 'the-right-password-0123');
      await expect.poll(() => page.locator('#uid').textContent()).toBe('limited@example.com');
    } finally {
      await context.close();
    }
  });
});

describe('the example through a dev proxy, and from a foreign origin', () => {
  const cacheDir = path.join(scratch, 'vite-dev');
  let dev: DevServer | undefined;
  afterEach(async () => {
    await dev?.close();
    dev = undefined;
  });

  it('works through Vite\'s dev server with the committed proxy (changeOrigin: false), no ALLOWED_ORIGINS entry needed', async () => {
    // An extra local account, as the README shows: the emulator's control API.
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email: 'dev-proxy@example.com', password: 'dev-proxy-password-0123' });
    await seed(sandbox.url, 'dev-proxy@example.com', 'F1099nec', 2);
    dev = await startDevServer({ gatewayUrl: gateway.current.url, cacheDir });
    expect(gateway.current.output()).not.toContain(dev.origin);
    const { context, page, problems } = await open(`${dev.origin}/`);
    try {
      await logIn(page, 'dev-proxy@example.com', 'dev-proxy-password-0123');
      await expect.poll(() => page.locator('#rows tr').count()).toBe(2);
      // Same origin: the cookie belongs to the page's host and port, through the proxy.
      expect((await context.cookies(dev.origin)).length).toBe(1);
      // The PDF links go through the proxy too (/statements), with the page's cookie.
      const uploaderId = await page.locator('#rows tr:first-child td:first-child').textContent();
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#rows tr:first-child a:text("Download")')]);
      expect(download.url()).toMatch(new RegExp(`^${dev.origin}/statements/[^/]+/pdf$`));
      expect(download.suggestedFilename()).toBe(`f1099nec-${uploaderId}.pdf`);
      expect(readFileSync(await download.path()).subarray(0, 5).toString()).toBe('%PDF-');
      await page.click('#logout');
      await expect.poll(() => message(page).textContent()).toBe('You are logged out.');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('is refused with CSRF_CHECK_FAILED naming the page\'s origin when the dev proxy rewrites Host, and works once that origin is allowed', async () => {
    dev = await startDevServer({ gatewayUrl: gateway.current.url, cacheDir, changeOrigin: true });
    const refused = await open(`${dev.origin}/`);
    try {
      await logIn(refused.page);
      await expect.poll(() => message(refused.page).textContent()).toContain('CSRF_CHECK_FAILED: Cross-site request refused: the origin');
      expect(await message(refused.page).textContent()).toContain(`"${dev.origin}" is not allowed`);
      await screenshot(refused.page, 'spa-csrf-refused.png');
    } finally {
      await refused.context.close();
    }
    // What the message tells the developer to do: add the page's origin to ALLOWED_ORIGINS.
    restart.origins.push(dev.origin);
    restart.port = new URL(gateway.current.url).port;
    await gateway.start();
    const { context, page } = await open(`${dev.origin}/`);
    try {
      await logIn(page);
      await expect.poll(() => page.locator('#uid').textContent()).toBe(DEMO_ACCOUNT.email);
    } finally {
      await context.close();
    }
  }, 30_000);

  it('cannot log in from a foreign origin: the browser\'s preflight is refused and no sign-in reaches the upstream', async () => {
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const { context, page } = await open(`${foreign!.origin}/`);
    try {
      await logIn(page);
      await expect.poll(() => message(page).textContent()).toMatch(/^NETWORK_ERROR: No answer from the gateway at http:\/\/127\.0\.0\.1:\d+: .*this page's origin http:\/\/127\.0\.0\.1:\d+ \(CORS/);
      expect(await page.locator('#login').isVisible()).toBe(true);
      expect((await context.cookies()).length).toBe(0);
      const requests = await control<{ path: string }[]>(sandbox.url, 'GET', '/__emulator/requests');
      expect(requests.body.map((request) => request.path)).not.toContain('/v2/auth/sign_in');
    } finally {
      await context.close();
    }
  });

  it('works with a gateway that has no manifest: its first request by id gets PERSISTED_QUERY_NOT_SUPPORTED, every later one is a text', async () => {
    restart.withoutManifest = true;
    restart.port = new URL(gateway.current.url).port;
    await gateway.start();
    const { context, page, problems } = await open(`${allowed!.origin}/`);
    const bodies: Record<string, unknown>[] = [];
    page.on('request', (request) => void (request.url().endsWith('/graphql') && request.method() === 'POST' && bodies.push(JSON.parse(request.postData() ?? '{}') as Record<string, unknown>)));
    try {
      // The page's first request (the session check at load) may be sent before the listener above.
      await page.reload();
      await page.locator('#login').waitFor();
      await logIn(page);
      await expect.poll(() => page.locator('#uid').textContent()).toBe(DEMO_ACCOUNT.email);
      await page.click('#refresh');
      const kinds = () => bodies.filter((body) => String(body.query).includes('query Statements') || 'documentId' in body).map((body) => ('documentId' in body ? 'id' : 'text'));
      // One id (the load's session check), then texts only: no round trip per document.
      await expect.poll(kinds).toEqual(['id', 'text', 'text']);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('signs an idle page out on time with the browser\'s clock 5 s ahead, checking with session(touch: false)', async () => {
    restart.idleTimeout = '4s';
    restart.port = new URL(gateway.current.url).port;
    await gateway.start();
    const { context, page, problems } = await open(`${allowed!.origin}/`);
    try {
      // The page's wall clock runs 5 s ahead of the gateway's (a page counting down to
      // idleExpiresAt with Date.now was at zero at once, and kept the session alive by asking).
      await page.evaluate(() => {
        const realNow = Date.now.bind(Date);
        Date.now = () => realNow() + 5_000;
      });
      await logIn(page);
      await expect.poll(() => page.locator('#uid').textContent()).toBe(DEMO_ACCOUNT.email);
      const lastRequest = Date.now();
      await expect.poll(() => message(page).textContent(), { timeout: 8_000 }).toBe('Your session has ended. Please log in again.');
      const signedOutAfter = Date.now() - lastRequest;
      expect(signedOutAfter).toBeGreaterThanOrEqual(3_500);
      expect(signedOutAfter).toBeLessThan(4_000 + 2_000);
      expect(await page.locator('#login').isVisible()).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
