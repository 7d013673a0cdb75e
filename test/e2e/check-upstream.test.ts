/**
 * `npm run check:upstream` (scripts/check-upstream.ts) as a pipeline runs it, against the
 * emulators and their `schemaChanges`: exit 0 when the live schemas match (or only add), 1 on a
 * breaking change or a refused trusted document, 2 when an environment with a service account
 * could not be checked or the configuration allows no check; a short table on stdout; never a
 * password or a token in the output.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { control } from '../support/emulator';
import { ROOT } from '../support/launcher';
import { REMOVED_AND_ADDED, SCHEMA_TEST_DOCUMENTS } from '../support/schema-check';
import { serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';
import { clientPresetManifest, documentId } from '../support/trusted-documents';

const accounts = { sandbox: testServiceAccount('cli-sandbox'), production: testServiceAccount('cli-production', { environment: 'production' }) };
let sandbox: RunningEmulator;
let production: RunningEmulator;

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The script in a process of its own (tsx's loader, as npm runs it), with only these variables and PATH. */
function checkUpstream(env: Record<string, string>, args: readonly string[] = []): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/check-upstream.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const env = (extra: Record<string, string> = {}) => ({
  UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, UPSTREAM_TIMEOUT_MS: '3000',
  TRUSTED_DOCUMENTS_FILE: clientPresetManifest(Object.values(SCHEMA_TEST_DOCUMENTS)), ...serviceAccountsEnv([accounts.sandbox, accounts.production]), ...extra,
});
/** Nothing secret in what it printed: the passwords, and the tokens the emulators handed out. */
function expectNoSecret(run: Run): void {
  const printed = run.stdout + run.stderr;
  for (const account of Object.values(accounts)) expect(printed).not.toContain(account.password);
  expect(printed).not.toMatch(/access-token|"accessToken"|Bearer /i);
}
const settings = (emulator: RunningEmulator, body: unknown) => control(emulator.url, 'PATCH', '/__emulator/settings', body);

beforeAll(async () => {
  [sandbox, production] = await Promise.all([startEmulator({ environment: 'sandbox' }), startEmulator({ environment: 'production' })]);
  for (const [emulator, account] of [[sandbox, accounts.sandbox], [production, accounts.production]] as const) {
    expect((await control(emulator.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password })).status).toBe(201);
  }
});
afterAll(async () => {
  await Promise.all([sandbox?.close(), production?.close()]);
});
beforeEach(async () => {
  await Promise.all([settings(sandbox, { schemaChanges: null, failStatus: null }), settings(production, { schemaChanges: null, failStatus: null })]);
});

// Each test runs the script once or twice through tsx's loader: seconds alone, far more when CI's
// first minutes start a dozen processes on two cores.
describe('npm run check:upstream', { timeout: 90_000 }, () => {
  it('exits 0 with a table saying `same` when both live schemas match the served one', async () => {
    const run = await checkUpstream(env());
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^environment\s+status\s+breaking\s+dangerous\s+safe\s+refused documents\s+took$/);
    expect(lines[1]).toMatch(/^sandbox\s+same\s+0\s+0\s+0\s+0\s+\d+ ms$/);
    expect(lines[2]).toMatch(/^production\s+same\s+0\s+0\s+0\s+0\s+\d+ ms$/);
    expect(lines).toHaveLength(3);
    expectNoSecret(run);
  });

  it('exits 0 when the upstream only added (safe), listing what it added', async () => {
    await settings(production, { schemaChanges: { add: ['SecretGreetingPayload.mood: String'] } });
    const run = await checkUpstream(env());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^production\s+changed\s+0\s+0\s+1\s+0\s+\d+ ms$/m);
    expect(run.stdout).toMatch(/^production\s+safe\s+SecretGreetingPayload\.mood\s+SecretGreetingPayload\.mood was added\.$/m);
  });

  it('exits 1 on a breaking change, naming it and the trusted document the upstream would refuse', async () => {
    await settings(sandbox, { schemaChanges: REMOVED_AND_ADDED });
    const run = await checkUpstream(env());
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^sandbox\s+changed\s+1\s+0\s+1\s+1\s+\d+ ms$/m);
    expect(run.stdout).toMatch(/^production\s+same\s/m);
    expect(run.stdout).toMatch(/^sandbox\s+breaking\s+Fw2Statement\.recipientTin\s+Fw2Statement\.recipientTin was removed\.$/m);
    expect(run.stdout).toContain(`sandbox  refused   W2Recipients (${documentId(SCHEMA_TEST_DOCUMENTS.w2).slice(0, 12)})`);
    expectNoSecret(run);
    // --json, for a pipeline that reads it.
    const json = await checkUpstream(env(), ['--json']);
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout) as { environment: string; outcome: { ok: boolean; changes: { path: string }[] } }[];
    expect(parsed.find((entry) => entry.environment === 'sandbox')?.outcome.changes.map((change) => change.path)).toEqual(['Fw2Statement.recipientTin', 'SecretGreetingPayload.mood']);
  });

  it('exits 2 when an environment with a service account cannot be checked: its upstream down, or its password refused', async () => {
    await settings(production, { failStatus: 503 });
    const down = await checkUpstream(env());
    expect(down.code, down.stderr).toBe(2);
    expect(down.stdout).toMatch(/^sandbox\s+same\s/m);
    expect(down.stdout).toMatch(/^production\s+failed\s/m);
    expect(down.stdout).toMatch(/^production\s+failed\s+cli-production-\w+\s+signing in as service account cli-production-\w+: UPSTREAM_UNAVAILABLE/m);
    await settings(production, { failStatus: null });

    const wrong = testServiceAccount('cli-wrong', { email: accounts.sandbox.email, configuredPassword: 'not-the-password-of-this-account' });
    const refused = await checkUpstream({ ...env(), ...serviceAccountsEnv([wrong, accounts.production]) });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stdout).toMatch(/^sandbox\s+failed\s+cli-wrong-\w+\s+signing in as service account cli-wrong-\w+: UNAUTHENTICATED/m);
    expect(refused.stdout + refused.stderr).not.toContain('not-the-password-of-this-account');
    expectNoSecret(refused);
  });

  it('exits 1 over 2: a breaking change found in one environment is certain, whatever the other', async () => {
    await settings(sandbox, { schemaChanges: REMOVED_AND_ADDED });
    await settings(production, { failStatus: 503 });
    expect((await checkUpstream(env())).code).toBe(1);
  });

  it('exits 2, saying what is missing, without upstream URLs or service accounts, and names an environment without an account `unknown`', async () => {
    const noUrls = await checkUpstream({ ...serviceAccountsEnv([accounts.sandbox]) });
    expect(noUrls.code).toBe(2);
    expect(noUrls.stderr).toContain('check:upstream needs UPSTREAM_SANDBOX_URL and UPSTREAM_PRODUCTION_URL');
    const noAccounts = await checkUpstream({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url });
    expect(noAccounts.code).toBe(2);
    expect(noAccounts.stderr).toContain('check:upstream needs SERVICE_ACCOUNTS_FILE');
    const sandboxOnly = await checkUpstream({ ...env(), ...serviceAccountsEnv([accounts.sandbox]) });
    expect(sandboxOnly.code, sandboxOnly.stderr).toBe(0);
    expect(sandboxOnly.stdout).toMatch(/^production\s+unknown\s+-\s+-\s+-\s+-\s+no service account$/m);
  });
});
