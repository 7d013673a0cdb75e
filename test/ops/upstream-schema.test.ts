/**
 * The upstream schema check in a gateway, against the emulator's `schemaChanges`: what
 * `GET /ops/upstream-schema` answers, the three gauges, the log lines, and that the check changes
 * nothing that is served and never opens the circuit (UPSTREAM_CIRCUIT_FAILURES=1 here, so a single
 * counted failure would). The /ops panel in Chromium: upstream-schema-page.test.ts; requests while
 * the check hangs, and replicas sharing it: upstream-schema-isolation.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { control } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { scrape } from '../support/metrics';
import { serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';
import { REMOVED_AND_ADDED as REMOVED, SCHEMA_TEST_DOCUMENTS as DOCUMENTS, SCHEMA_TEST_TOKEN as TOKEN, upstreamSchemaStatuses as statusesOf } from '../support/schema-check';
import { clientPresetManifest, documentId } from '../support/trusted-documents';

const BEARER = { authorization: `Bearer ${TOKEN}` };

const accounts = { sandbox: testServiceAccount('schema-sandbox'), production: testServiceAccount('schema-production', { environment: 'production' }) };
let sandbox: RunningEmulator;
let production: RunningEmulator;
let gateway: TestGateway;

const linesOf = (output: string, event: string) => output.split('\n').filter((line) => line.includes(`"event":"${event}"`)).map((line) => JSON.parse(line) as Record<string, unknown>);
const settings = (emulator: RunningEmulator, body: unknown) => control(emulator.url, 'PATCH', '/__emulator/settings', body);

beforeAll(async () => {
  [sandbox, production] = await Promise.all([startEmulator({ environment: 'sandbox' }), startEmulator({ environment: 'production' })]);
  for (const [emulator, account] of [[sandbox, accounts.sandbox], [production, accounts.production]] as const) {
    expect((await control(emulator.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password })).status).toBe(201);
  }
  gateway = await startTestGateway({
    UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    OPS_TOKEN: TOKEN, UPSTREAM_SCHEMA_CHECK_INTERVAL: '1s', UPSTREAM_TIMEOUT_MS: '2000', UPSTREAM_CIRCUIT_FAILURES: '1',
    TRUSTED_DOCUMENTS_FILE: clientPresetManifest(Object.values(DOCUMENTS)),
    ...serviceAccountsEnv([accounts.sandbox, accounts.production]),
  });
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([sandbox?.close(), production?.close()]);
});

describe('GET /ops/upstream-schema and the gauges', () => {
  it('say `same` for both environments while the live upstream matches, checked as each environment\'s service account', async () => {
    await expect.poll(async () => Object.values(await statusesOf(gateway.url)).map((check) => check.status)).toEqual(['same', 'same']);
    const { sandbox: check } = await statusesOf(gateway.url);
    expect(check).toMatchObject({ changes: [], invalidDocuments: [], lastSuccessAt: check.checkedAt });
    expect(Date.parse(check.checkedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    const metrics = await scrape(gateway.url, BEARER.authorization);
    for (const environment of ['sandbox', 'production']) {
      expect(metrics.sum('statement_gateway_upstream_schema_changes', { environment }), environment).toBe(0);
      expect(metrics.series.filter((entry) => entry.name === 'statement_gateway_upstream_schema_changes' && entry.labels.environment === environment)).toHaveLength(3);
      expect(metrics.sum('statement_gateway_trusted_documents_invalid', { environment })).toBe(0);
      expect(metrics.sum('statement_gateway_upstream_schema_checked_timestamp_seconds', { environment })).toBeGreaterThan(Date.now() / 1000 - 60);
    }
    // One introspection, as the service account (its uid), never counted as a user's operation.
    const introspections = sandbox.state.requests.filter((request) => request.operations.includes('__schema'));
    expect(introspections.length).toBeGreaterThan(0);
    expect(new Set(introspections.map((request) => request.uid))).toEqual(new Set([accounts.sandbox.email]));
  });

  it('find a removed field breaking and an added one safe, name the trusted document the upstream would refuse, and log it as a warning', async () => {
    expect((await settings(sandbox, { schemaChanges: REMOVED })).status).toBe(200);
    await expect.poll(async () => (await statusesOf(gateway.url)).sandbox.status).toBe('changed');
    const statuses = await statusesOf(gateway.url);
    expect(statuses.sandbox.changes).toEqual([
      { severity: 'breaking', path: 'Fw2Statement.recipientTin', description: 'Fw2Statement.recipientTin was removed.' },
      { severity: 'safe', path: 'SecretGreetingPayload.mood', description: 'SecretGreetingPayload.mood was added.' },
    ]);
    expect(statuses.sandbox.invalidDocuments).toEqual([{ id: documentId(DOCUMENTS.w2), name: 'W2Recipients', message: expect.stringMatching(/^Cannot query field "recipientTin" on type "Fw2Statement"/) }]);
    expect(statuses.production.status).toBe('same');

    const metrics = await scrape(gateway.url, BEARER.authorization);
    expect(metrics.sum('statement_gateway_upstream_schema_changes', { environment: 'sandbox', severity: 'breaking' })).toBe(1);
    expect(metrics.sum('statement_gateway_upstream_schema_changes', { environment: 'sandbox', severity: 'safe' })).toBe(1);
    expect(metrics.sum('statement_gateway_upstream_schema_changes', { environment: 'sandbox', severity: 'dangerous' })).toBe(0);
    expect(metrics.sum('statement_gateway_trusted_documents_invalid', { environment: 'sandbox' })).toBe(1);
    expect(metrics.sum('statement_gateway_trusted_documents_invalid', { environment: 'production' })).toBe(0);

    const changed = linesOf(gateway.output(), 'upstream.schema_changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ level: 'warn', environment: 'sandbox', breaking: 1, dangerous: 0, safe: 1, invalidDocuments: 1, paths: ['Fw2Statement.recipientTin'], documents: [`W2Recipients (${documentId(DOCUMENTS.w2).slice(0, 12)})`] });
    // Later checks that find the same say nothing more.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(linesOf(gateway.output(), 'upstream.schema_changed')).toHaveLength(1);
  });

  it('change nothing that is served: the gateway still has the removed field, and passes the upstream\'s refusal on', async () => {
    const introspected = await new Browser(gateway.url).graphql('{ __type(name: "Fw2Statement") { fields { name } } }');
    expect((introspected.body.data?.__type.fields as { name: string }[]).map((field) => field.name)).toContain('recipientTin');
  });

  it('say `same` again once the upstream is back (null), with an info line', async () => {
    await settings(sandbox, { schemaChanges: null });
    await expect.poll(async () => (await statusesOf(gateway.url)).sandbox.status).toBe('same');
    const changed = linesOf(gateway.output(), 'upstream.schema_changed');
    expect(changed).toHaveLength(2);
    expect(changed[1]).toMatchObject({ level: 'info', environment: 'sandbox', breaking: 0, safe: 0, invalidDocuments: 0, paths: [], documents: [] });
    const metrics = await scrape(gateway.url, BEARER.authorization);
    expect(metrics.sum('statement_gateway_upstream_schema_changes', { environment: 'sandbox' })).toBe(0);
  });

  it('say `failed` while the upstream fails, keep the last success\'s findings and timestamp, and leave the circuit closed', async () => {
    await expect.poll(async () => (await statusesOf(gateway.url)).production.status).toBe('same');
    const timestamp = async () => (await scrape(gateway.url, BEARER.authorization)).sum('statement_gateway_upstream_schema_checked_timestamp_seconds', { environment: 'production' });
    await settings(production, { failStatus: 503 });
    try {
      await expect.poll(async () => (await statusesOf(gateway.url)).production.status).toBe('failed');
      const failing = (await statusesOf(gateway.url)).production;
      expect(failing.reason).toMatch(/UPSTREAM_UNAVAILABLE/);
      expect(Date.parse(failing.checkedAt ?? '')).toBeGreaterThan(Date.parse(failing.lastSuccessAt ?? ''));
      expect(failing.lastSuccessAt).not.toBeNull();
      const stamped = await timestamp();
      expect(stamped).toBeLessThanOrEqual(Date.parse(failing.lastSuccessAt ?? '') / 1000 + 0.001);
      // Two failed checks at least, with UPSTREAM_CIRCUIT_FAILURES=1: a counted one would have opened it.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const metrics = await scrape(gateway.url, BEARER.authorization);
      expect(metrics.sum('statement_gateway_upstream_circuit_state', { environment: 'production' })).toBe(0);
      expect(linesOf(gateway.output(), 'upstream.schema_check_failed').filter((line) => line.environment === 'production').length).toBeGreaterThanOrEqual(2);
    } finally {
      await settings(production, { failStatus: null });
    }
    // The first user request after the outage goes through: no circuit to wait out.
    const login = await new Browser(gateway.url).login('demo@example.com', 'demo-password-0123456789', 'PRODUCTION');
    expect(login.codes).toEqual([]);
    await expect.poll(async () => (await statusesOf(gateway.url)).production.status).toBe('same');
  });

  it('needs the OPS_TOKEN, answers GET only, and writes an audit line per call', async () => {
    const url = `${gateway.url}/ops/upstream-schema`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: 'Bearer not-the-token-at-all-0123' } })).status).toBe(401);
    expect((await fetch(url, { method: 'POST', headers: BEARER })).status).toBe(405);
    const answer = await fetch(url, { headers: BEARER });
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const audits = linesOf(gateway.output(), 'audit').filter((line) => line.action === 'ops.upstream-schema');
    expect(audits.map((line) => line.status).slice(-4)).toEqual([401, 401, 405, 200]);
    expect(audits.at(-1)).toMatchObject({ actor: 'operator', outcome: 'ok', counts: { 'sandbox.changes': 0, 'production.changes': 0 } });
    expect(gateway.output()).not.toContain(TOKEN);
  });
});

describe('environments the check does not cover', () => {
  let partial: TestGateway | undefined;
  let off: TestGateway | undefined;
  beforeAll(async () => {
    const base = { UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY, OPS_TOKEN: TOKEN };
    [partial, off] = await Promise.all([
      startTestGateway({ ...base, UPSTREAM_SCHEMA_CHECK_INTERVAL: '1s', ...serviceAccountsEnv([accounts.sandbox]) }),
      startTestGateway({ ...base, OPS_PORT: '0', UPSTREAM_SCHEMA_CHECK_INTERVAL: '0', ...serviceAccountsEnv([accounts.sandbox, accounts.production]) }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([partial?.stop(), off?.stop()]);
  });

  it('are `unknown`, saying why, with no series (but every family on /metrics)', async () => {
    await expect.poll(async () => (await statusesOf(partial!.url)).sandbox.status).toBe('same');
    expect((await statusesOf(partial!.url)).production).toEqual({ checkedAt: null, status: 'unknown', changes: [], invalidDocuments: [], lastSuccessAt: null, reason: 'no service account of this environment in SERVICE_ACCOUNTS_FILE' });
    const metrics = await scrape(partial!.url, BEARER.authorization);
    expect(metrics.series.filter((entry) => entry.name.startsWith('statement_gateway_upstream_schema') && entry.labels.environment === 'production')).toEqual([]);

    // With OPS_PORT, on the ops listener only.
    expect((await fetch(`${off!.url}/ops/upstream-schema`, { headers: BEARER })).status).toBe(404);
    const statuses = await statusesOf(off!.opsUrl!);
    for (const check of Object.values(statuses)) expect(check).toMatchObject({ status: 'unknown', reason: 'the check is off (UPSTREAM_SCHEMA_CHECK_INTERVAL=0)' });
    const quiet = await scrape(off!.opsUrl!, BEARER.authorization);
    for (const family of ['statement_gateway_upstream_schema_changes', 'statement_gateway_upstream_schema_checked_timestamp_seconds', 'statement_gateway_trusted_documents_invalid']) {
      expect(quiet.types.get(family), family).toBe('gauge');
      expect(quiet.series.filter((entry) => entry.name === family), family).toEqual([]);
    }
  });
});
