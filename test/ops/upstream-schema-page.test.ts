/**
 * The /ops page's upstream schema panel in a real browser (Debian's Chromium through Playwright),
 * against the emulator's `schemaChanges`: a card per environment with its status, the changes by
 * severity and the trusted documents the upstream would refuse; then a failing upstream. The
 * docs' screenshot: UPSTREAM_SCHEMA_SCREENSHOT=docs/ops-upstream-schema.png.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser as Chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { control } from '../support/emulator';
import { startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { REMOVED_AND_ADDED, SCHEMA_TEST_DOCUMENTS, SCHEMA_TEST_TOKEN as TOKEN, upstreamSchemaStatuses } from '../support/schema-check';
import { serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';
import { clientPresetManifest, documentId } from '../support/trusted-documents';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const accounts = { sandbox: testServiceAccount('panel-sandbox'), production: testServiceAccount('panel-production', { environment: 'production' }) };
let sandbox: RunningEmulator;
let production: RunningEmulator;
let gateway: TestGateway;
let browser: Chromium | undefined;

beforeAll(async () => {
  [sandbox, production] = await Promise.all([startEmulator({ environment: 'sandbox' }), startEmulator({ environment: 'production' })]);
  for (const [emulator, account] of [[sandbox, accounts.sandbox], [production, accounts.production]] as const) {
    expect((await control(emulator.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password })).status).toBe(201);
  }
  gateway = await startTestGateway({
    UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    OPS_TOKEN: TOKEN, UPSTREAM_SCHEMA_CHECK_INTERVAL: '1s', UPSTREAM_TIMEOUT_MS: '2000',
    TRUSTED_DOCUMENTS_FILE: clientPresetManifest(Object.values(SCHEMA_TEST_DOCUMENTS)), ...serviceAccountsEnv([accounts.sandbox, accounts.production]),
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await Promise.all([sandbox?.close(), production?.close()]);
});

describe('the /ops upstream schema panel', () => {
  it('shows each environment\'s status, its changes by severity and the refused trusted documents, then a failing upstream with its reason', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { schemaChanges: REMOVED_AND_ADDED });
    await expect.poll(async () => (await upstreamSchemaStatuses(gateway.url)).sandbox.status).toBe('changed');
    const context = await browser!.newContext({ httpCredentials: { username: 'ops', password: TOKEN }, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    try {
      await page.goto(`${gateway.url}/ops/?every=1`);
      const card = (environment: string) => page.locator(`.schema-environment[data-environment="${environment}"]`);
      await expect.poll(() => card('sandbox').getAttribute('data-status')).toBe('changed');
      await expect.poll(() => card('production').getAttribute('data-status')).toBe('same');
      expect(await card('sandbox').getAttribute('data-breaking')).toBe('1');
      expect(await card('sandbox').getAttribute('data-invalid-documents')).toBe('1');
      expect(await card('sandbox').locator('.badge').getAttribute('class')).toBe('badge changed breaking');
      const changes = await card('sandbox').locator('table.changes tr').evaluateAll((rows) => rows.slice(1).map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
      expect(changes).toEqual([
        ['breaking', 'Fw2Statement.recipientTin', 'Fw2Statement.recipientTin was removed.'],
        ['safe', 'SecretGreetingPayload.mood', 'SecretGreetingPayload.mood was added.'],
      ]);
      const refused = await card('sandbox').locator('table.documents tr').evaluateAll((rows) => rows.slice(1).map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent)));
      expect(refused).toEqual([['W2Recipients', documentId(SCHEMA_TEST_DOCUMENTS.w2).slice(0, 12), expect.stringMatching(/^Cannot query field "recipientTin" on type "Fw2Statement"/)]]);
      expect(await card('sandbox').locator('.counts').textContent()).toBe('1 breaking · 0 dangerous · 1 safe · 1 trusted document refused');
      expect(await card('production').locator('.counts').textContent()).toBe('0 breaking · 0 dangerous · 0 safe · 0 trusted documents refused');

      const shot = await page.locator('#upstream-schema').screenshot();
      expect(shot.subarray(1, 4).toString()).toBe('PNG');
      writeFileSync(process.env.UPSTREAM_SCHEMA_SCREENSHOT ?? path.join(mkdtempSync(path.join(tmpdir(), 'ops-')), 'ops-upstream-schema.png'), shot);

      await control(production.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
      await expect.poll(() => card('production').getAttribute('data-status')).toBe('failed');
      expect(await card('production').locator('.badge').getAttribute('class')).toBe('badge failed');
      expect(await card('production').locator('.reason').textContent()).toMatch(/UPSTREAM_UNAVAILABLE/);
      // The last success's findings stay on show, and say when they were found.
      expect(await card('production').locator('.meta').first().textContent()).toMatch(/^checked \S+ · last success \S+ · took \d+ ms$/);
      expect(problems).toEqual([]);
    } finally {
      await control(production.url, 'PATCH', '/__emulator/settings', { failStatus: null });
      await context.close();
    }
  });
});
