/**
 * Service accounts: an API key instead of a cookie; the gateway signs the account in upstream
 * itself and shares the credential between replicas (two gateway processes on one Redis here).
 * The emulator is not reset between these tests: each test has accounts of its own.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { takeUpstreamRequests, type UpstreamRequest } from '../support/cache';
import { control, seed, signInRaw } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { callWithKey, serviceAccountsEnv, testServiceAccount, type TestServiceAccount } from '../support/service-accounts';

const GREETING = '{ secretGreeting { response } }';
const STATEMENTS = 'query($ids: [String!]) { getStatements(otxIds: $ids) { statements { nodes { otxId uploaderId } } } }';
const STATEMENTS_PDF = 'query($ids: [String!]) { getStatements(otxIds: $ids) { statements { nodes { otxId pdf } } } }';
const DEFAULT_SETTINGS = { latencyMs: 0, failStatus: null, hangMs: 0, tokenTtlSeconds: 14 * 24 * 3600, rotateTokens: false, failNextCount: 0, failNextStatus: 503, dropNextResponses: 0 };

const accounts = {
  basic: testServiceAccount('basic'),
  concurrent: testServiceAccount('concurrent'),
  expiring: testServiceAccount('expiring'),
  refused: testServiceAccount('refused'),
  rotating: testServiceAccount('rotating'),
  wrong: testServiceAccount('wrong', { configuredPassword: 'not-the-password-at-all' }),
  isolated: testServiceAccount('isolated'),
  limited: testServiceAccount('limited', { requestsPerMinute: 6 }),
};

const signIns = (requests: readonly UpstreamRequest[]) => requests.filter((request) => request.path === '/v2/auth/sign_in');

let emulator: RunningEmulator;
let gateways: TestGateway[] = [];
const [first, second] = [() => gateways[0]!.url, () => gateways[1]!.url];

beforeAll(async () => {
  emulator = await startEmulator({ environment: 'sandbox' });
  const production = await startEmulator({ environment: 'production' });
  afterAll(() => production.close());
  for (const account of Object.values(accounts)) {
    const created = await control(emulator.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password });
    expect(created.status).toBe(201);
  }
  const env = {
    UPSTREAM_SANDBOX_URL: emulator.url,
    UPSTREAM_PRODUCTION_URL: production.url,
    REDIS_URL: TEST_REDIS_URL,
    CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    LOG_LEVEL: 'trace',
    ...serviceAccountsEnv(Object.values(accounts)),
  };
  gateways = await Promise.all([startTestGateway(env), startTestGateway(env)]);
});

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.stop()));
  await emulator?.close();
});

afterEach(async () => {
  await control(emulator.url, 'PATCH', '/__emulator/settings', DEFAULT_SETTINGS);
});

/** Each gateway in turn, `count` calls at once. */
function burst(account: TestServiceAccount, count: number, query = GREETING) {
  return Promise.all(Array.from({ length: count }, (_, index) => callWithKey(index % 2 ? second() : first(), account.key, query)));
}

describe('a service account', () => {
  it('works with its API key alone: no cookie, no X-CSRF header, acting as its own upstream account', async () => {
    const answer = await callWithKey(first(), accounts.basic.key, GREETING);
    expect(answer.status).toBe(200);
    expect(answer.body.data?.secretGreeting.response).toContain(accounts.basic.email);
    expect(answer.headers.getSetCookie()).toEqual([]);
    // No credential of the account reaches the caller.
    for (const name of ['access-token', 'client', 'uid', 'authorization']) expect(answer.headers.get(name)).toBeNull();
  });

  it('refuses a wrong, truncated or malformed key with UNAUTHENTICATED, and counts it', async () => {
    for (const key of ['sgw_not-a-key', accounts.basic.key.slice(0, -1), `${accounts.basic.key}x`, 'two words']) {
      const answer = await callWithKey(first(), key, GREETING);
      expect(answer.status).toBe(401);
      expect(answer.codes).toEqual(['UNAUTHENTICATED']);
      expect(JSON.stringify(answer.body)).not.toContain(key);
    }
    const metrics = await (await fetch(`${first()}/metrics`)).text();
    expect(Number(/^statement_gateway_api_key_rejections_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(4);
  });

  it('is signed in upstream exactly once for 20 concurrent requests on two gateway processes', async () => {
    await takeUpstreamRequests(emulator.url);
    const answers = await burst(accounts.concurrent, 20);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const requests = await takeUpstreamRequests(emulator.url);
    expect(signIns(requests)).toHaveLength(1);
    expect(requests.filter((request) => request.path === '/v2/graphql').every((request) => request.uid === accounts.concurrent.email)).toBe(true);
  });

  it('is signed in again once when its credential expires', async () => {
    // The expiry is in whole seconds and renewed 1 s early: a 5 s token is usable for 3 to 4 s.
    await control(emulator.url, 'PATCH', '/__emulator/settings', { tokenTtlSeconds: 5 });
    await takeUpstreamRequests(emulator.url);
    expect((await callWithKey(first(), accounts.expiring.key, GREETING)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5_300));
    const answers = await burst(accounts.expiring, 20);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const requests = await takeUpstreamRequests(emulator.url);
    expect(signIns(requests)).toHaveLength(2);
    // The expired credential was never sent: no upstream refusal.
    expect(requests.filter((request) => request.status === 401)).toEqual([]);
  });

  it('is signed in again once, and the requests retried, when the upstream stops accepting its credential', async () => {
    expect((await callWithKey(first(), accounts.refused.key, GREETING)).status).toBe(200);
    // Ten sign-ins elsewhere push the gateway's client out (devise's max_number_of_devices).
    for (let index = 0; index < 10; index++) expect((await signInRaw(emulator.url, accounts.refused.email, accounts.refused.password)).status).toBe(200);
    await takeUpstreamRequests(emulator.url);
    const answers = await burst(accounts.refused, 6);
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    const requests = await takeUpstreamRequests(emulator.url);
    expect(signIns(requests)).toHaveLength(1);
    // Each refused call was retried once: at most one 401 per request, never a loop.
    expect(requests.filter((request) => request.status === 401).length).toBeLessThanOrEqual(6);
  });

  it('keeps the tokens the upstream rotates, across both replicas', async () => {
    await control(emulator.url, 'PATCH', '/__emulator/settings', { rotateTokens: true });
    await takeUpstreamRequests(emulator.url);
    for (let round = 0; round < 4; round++) {
      const answers = await burst(accounts.rotating, 6);
      expect(answers.map((answer) => answer.codes.join() || answer.status)).toEqual(Array(6).fill(200));
    }
    for (let index = 0; index < 6; index++) expect((await callWithKey(index % 2 ? second() : first(), accounts.rotating.key, GREETING)).status).toBe(200);
    const requests = await takeUpstreamRequests(emulator.url);
    expect(signIns(requests)).toHaveLength(1);
  });

  it('backs off when its configured password is wrong, instead of hammering the upstream', async () => {
    await takeUpstreamRequests(emulator.url);
    const started = Date.now();
    const codes = new Set<string>();
    let retryAfter: string | null = null;
    while (Date.now() - started < 3_000) {
      const answers = await burst(accounts.wrong, 4);
      for (const answer of answers) {
        codes.add(answer.codes.join());
        retryAfter ??= answer.headers.get('retry-after');
        expect(JSON.stringify(answer.body)).not.toContain(accounts.wrong.email);
        expect(JSON.stringify(answer.body)).not.toContain('not-the-password-at-all');
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...codes]).toEqual(['UNAUTHENTICATED']);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // Dozens of requests in 3 s on two replicas; the backoff (2 s, then 4 s, ...) allows two attempts.
    const attempts = signIns(await takeUpstreamRequests(emulator.url));
    expect(attempts.length).toBeGreaterThanOrEqual(1);
    expect(attempts.length).toBeLessThanOrEqual(2);
  });

  it('is limited to its requestsPerMinute across both replicas, with Retry-After', async () => {
    const answers: Awaited<ReturnType<typeof callWithKey>>[] = [];
    for (let index = 0; index < 9; index++) answers.push(await callWithKey(index % 2 ? second() : first(), accounts.limited.key, GREETING));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(6);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(3);
    for (const answer of refused) {
      expect(answer.codes).toEqual(['RATE_LIMITED']);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(JSON.stringify(answer.body)).not.toContain(accounts.limited.name);
    }
    const metrics = await (await fetch(`${first()}/metrics`)).text();
    expect(metrics).toMatch(/^statement_gateway_rate_limited_total\{limit="service-account"\} [1-9]/m);
  });

  it("never sees a user's statements or PDFs, through any cache", async () => {
    const own = await seed(emulator.url, accounts.isolated.email, 'F1099nec', 2, 'svc-');
    const userEmail = `svc-neighbour-${Date.now()}@example.com`;
    await control(emulator.url, 'POST', '/__emulator/accounts', { email: userEmail, password: 'a-long-enough-password-123' });
    const theirs = await seed(emulator.url, userEmail, 'F1099nec', 3, 'svc-');
    const user = new Browser(first());
    expect((await user.login(userEmail, 'a-long-enough-password-123')).codes).toEqual([]);
    const all = [...own, ...theirs].map((statement) => statement.otxId);

    // The user's reads (with and without PDFs) are cached first, under the same documents.
    const userAnswer = await user.graphql(STATEMENTS, { ids: all });
    expect(userAnswer.body.data?.getStatements.statements.nodes).toHaveLength(3);
    await user.graphql(STATEMENTS_PDF, { ids: all });

    for (const url of [first(), second()]) {
      const reads = await callWithKey(url, accounts.isolated.key, STATEMENTS, { ids: all });
      expect(reads.body.data?.getStatements.statements.nodes.map((node: { otxId: string }) => node.otxId).sort()).toEqual(own.map((s) => s.otxId).sort());
      const pdfs = await callWithKey(url, accounts.isolated.key, STATEMENTS_PDF, { ids: theirs.map((s) => s.otxId) });
      expect(pdfs.body.data?.getStatements.statements.nodes).toEqual([]);
    }
  });

  it('never writes an API key or a configured password to the logs, even at trace level', () => {
    const output = gateways.map((gateway) => gateway.output()).join('\n');
    expect(output).toContain('service-account.signed-in');
    for (const account of Object.values(accounts)) {
      expect(output).not.toContain(account.key);
      expect(output).not.toContain(account.password);
      if (account.configuredPassword) expect(output).not.toContain(account.configuredPassword);
    }
  });
});
