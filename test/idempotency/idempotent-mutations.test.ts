/**
 * Idempotent mutations (src/idempotency/) on a gateway in front of the emulators, with the test
 * Redis as its session store: one scenario each of the contract's "Idempotent mutations".
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGatewayOnEmulators } from '../support/gateway';
import { ADD_FW2, code, firstError, fw2, READ_FW2, send } from '../support/idempotency';
import { scrape } from '../support/metrics';

const { sandbox, production, gateway } = useGatewayOnEmulators();
const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.disconnect());

const ADD = ADD_FW2;
const READ = READ_FW2;

const adds = async () => (await control<{ operations: string[] }[]>(sandbox.url, 'GET', '/__emulator/requests')).body.filter((entry) => entry.operations.includes('addFw2Statements')).length;
const stored = async (browser: Browser) => ((await browser.graphql(READ)).body.data?.getFw2Statements.statements.nodes as { uploaderId: string }[]).map((node) => node.uploaderId);
const statement = fw2;

let browser: Browser;
beforeEach(async () => {
  browser = new Browser(gateway.current.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  await control(sandbox.url, 'DELETE', '/__emulator/requests');
});

describe('idempotent mutations', () => {
  it('runs a mutation once and replays its answer byte for byte with Idempotent-Replayed', async () => {
    const key = randomUUID();
    const first = await send(browser, key, ADD, statement('emp-1'));
    const again = await send(browser, key, ADD, statement('emp-1'));
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await adds()).toBe(1);
    expect(await stored(browser)).toEqual(['emp-1']);
  });

  it('treats the same variables in another key order as the same request', async () => {
    const key = randomUUID();
    const variables = { s: [{ uploaderId: 'emp-2', recipientFirstName: 'Ada' }] };
    expect((await send(browser, key, ADD, variables)).status).toBe(200);
    const reordered = await send(browser, key, ADD, { s: [{ recipientFirstName: 'Ada', uploaderId: 'emp-2' }] });
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    expect(await adds()).toBe(1);
  });

  it('answers IDEMPOTENCY_KEY_REUSED (422) to the same key with a different request', async () => {
    const key = randomUUID();
    await send(browser, key, ADD, statement('emp-3'));
    const other = await send(browser, key, ADD, statement('emp-4'));
    expect(other.status).toBe(422);
    expect(code(other)).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await stored(browser)).toEqual(['emp-3']);
  });

  it('answers IDEMPOTENCY_KEY_IN_USE (409) with Retry-After while the first request runs', async () => {
    const key = randomUUID();
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 600 });
    const first = send(browser, key, ADD, statement('emp-5'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during = await send(browser, key, ADD, statement('emp-5'));
    expect(during.status).toBe(409);
    expect(code(during)).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(during.headers.get('retry-after')).toBe('1');
    expect((await first).status).toBe(200);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 0 });
    expect((await send(browser, key, ADD, statement('emp-5'))).headers.get('idempotent-replayed')).toBe('true');
    expect(await adds()).toBe(1);
  });

  it('keeps the keys of different identities apart', async () => {
    const key = randomUUID();
    const email = `other-${randomUUID()}@example.com`;
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: 'other-password-0123456789' });
    const other = new Browser(gateway.current.url);
    expect((await other.login(email, 'other-password-0123456789')).codes).toEqual([]);
    await send(browser, key, ADD, statement('emp-6'));
    const theirs = await send(other, key, ADD, statement('emp-6'));
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(await stored(other)).toEqual(['emp-6']);
    expect(await adds()).toBe(2);
  });

  it('replays a lost answer as the same UPSTREAM_UNAVAILABLE without retry hints, and the mutation stays applied once', async () => {
    const key = randomUUID();
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { dropNextResponses: 1 });
    const lost = await send(browser, key, ADD, statement('emp-7'));
    expect(lost.status).toBe(503);
    expect(code(lost)).toBe('UPSTREAM_UNAVAILABLE');
    // Retrying the same key cannot help: neither the first answer nor its replays invite it.
    expect(lost.headers.get('retry-after')).toBeNull();
    expect(firstError(lost)?.extensions).not.toHaveProperty('retryAfterSeconds');
    const again = await send(browser, key, ADD, statement('emp-7'));
    expect(again.status).toBe(503);
    expect(again.text).toBe(lost.text);
    expect(again.headers.get('retry-after')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await stored(browser)).toEqual(['emp-7']);
    expect(await adds()).toBe(1);
  });

  it('logs a replay with the status the client got', async () => {
    const key = randomUUID();
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { dropNextResponses: 1 });
    await send(browser, key, ADD, statement('emp-15'));
    const replay = await send(browser, key, ADD, statement('emp-15'));
    const id = replay.headers.get('x-request-id');
    const lines = gateway.current.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { event?: string; requestId?: string; status?: number });
    expect(lines.find((line) => line.event === 'request.completed' && line.requestId === id)?.status).toBe(503);
  });

  it('keeps nothing for a mutation refused before the upstream (an open circuit)', async () => {
    const own = await startTestGateway({
      UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
      UPSTREAM_RETRIES: '0', UPSTREAM_CIRCUIT_FAILURES: '1', UPSTREAM_CIRCUIT_COOLDOWN: '1s',
    });
    try {
      const client = new Browser(own.url);
      expect((await client.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { failNextCount: 1 });
      // A query no cache answers opens the circuit (one failure is enough here).
      expect((await client.graphql('{ secretGreeting { response } }')).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
      const key = randomUUID();
      const refused = await send(client, key, ADD, statement('emp-8'));
      expect(code(refused)).toBe('UPSTREAM_UNAVAILABLE');
      expect(await adds()).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const ran = await send(client, key, ADD, statement('emp-8'));
      expect(ran.status).toBe(200);
      expect(ran.headers.get('idempotent-replayed')).toBeNull();
      expect(await stored(client)).toEqual(['emp-8']);
    } finally {
      await own.stop();
    }
  });

  it('runs a key claimed on two replicas at once exactly once', async () => {
    const second = await startTestGateway({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY });
    try {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 300 });
      const key = randomUUID();
      const answers = await Promise.all([send(browser, key, ADD, statement('emp-9')), send(browser, key, ADD, statement('emp-9'), second.url)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      expect(await adds()).toBe(1);
    } finally {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 0 });
      await second.stop();
    }
  });

  it('replays from the in-memory store when the gateway has no Redis', async () => {
    const memory = await startTestGateway({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url });
    try {
      const client = new Browser(memory.url);
      expect((await client.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
      const key = randomUUID();
      const first = await send(client, key, ADD, statement('emp-14'));
      const again = await send(client, key, ADD, statement('emp-14'));
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await adds()).toBe(1);
    } finally {
      await memory.stop();
    }
  });

  it('stores no statement data in clear in Redis', async () => {
    const before = (await redis.keys('sgw:idem:*')).length;
    await send(browser, randomUUID(), ADD, statement('emp-secret-10'));
    const keys = await redis.keys('sgw:idem:*');
    expect(keys.length).toBeGreaterThan(before);
    for (const name of keys) {
      const dump = JSON.stringify(await redis.type(name) === 'hash' ? await redis.hgetall(name) : await redis.zrange(name, 0, -1));
      expect(dump).not.toContain('emp-secret-10');
      expect(dump).not.toContain('123-45-6789');
      expect(dump).not.toContain('Lovelace');
      expect(name).not.toContain(DEMO_ACCOUNT.email);
    }
  });

  it('refuses a malformed Idempotency-Key on a mutation with BAD_REQUEST', async () => {
    const refused = await send(browser, 'no spaces allowed', ADD, statement('emp-11'));
    expect(refused.status).toBe(400);
    expect(code(refused)).toBe('BAD_REQUEST');
    expect(await adds()).toBe(0);
  });

  it('ignores the header on a query', async () => {
    const key = randomUUID();
    expect((await send(browser, key, READ, {})).headers.get('idempotent-replayed')).toBeNull();
    expect((await send(browser, key, READ, {})).headers.get('idempotent-replayed')).toBeNull();
  });

  it('counts stored, replayed, in-use and reused answers', async () => {
    const count = async (result: string) => (await scrape(gateway.current.url)).sum('statement_gateway_idempotency_total', { result });
    const [storedBefore, replayedBefore, reusedBefore] = [await count('stored'), await count('replayed'), await count('reused')];
    const key = randomUUID();
    await send(browser, key, ADD, statement('emp-12'));
    await send(browser, key, ADD, statement('emp-12'));
    await send(browser, key, ADD, statement('emp-13'));
    expect(await count('stored')).toBe(storedBefore + 1);
    expect(await count('replayed')).toBe(replayedBefore + 1);
    expect(await count('reused')).toBe(reusedBefore + 1);
  });
});
