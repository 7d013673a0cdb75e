/**
 * Idempotent mutations where the first version let a key run twice or kept too much (the contract's
 * "Idempotent mutations", last four bullets): a mutation that outlives any fixed hold, a client that
 * goes away mid-mutation, the bound on kept answers, `pdf` under a key, and CREDENTIAL_KEY rotation.
 * In-process gateways on the test Redis in front of the emulators.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT } from '../support/emulator';
import { Browser } from '../support/gateway';
import { ADD_FW2, code, fw2, send, useOwnGateways } from '../support/idempotency';

const { sandbox, gatewayWith, calls } = useOwnGateways();

async function signedIn(url: string, email: string = DEMO_ACCOUNT.email, password: string = DEMO_ACCOUNT.password): Promise<Browser> {
  const browser = new Browser(url);
  expect((await browser.login(email, password)).codes).toEqual([]);
  return browser;
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('idempotent mutations, hardened', () => {
  it('holds the key for as long as a mutation of many root fields runs, past UPSTREAM_TIMEOUT_MS + 10 s', { timeout: 60_000 }, async () => {
    // Mesh runs a mutation's root fields one after another: 17 calls of 700 ms outlive both the old
    // fixed hold (3 × 1 s + 5 s) and one lease (1 s + 10 s) without a renewal.
    const gateway = await gatewayWith({ UPSTREAM_TIMEOUT_MS: '1000', FAST_PATH: 'false' });
    const browser = await signedIn(gateway.url);
    const fields = Array.from({ length: 17 }, (_, i) => `d${i}: deleteStatements(uploaderIds: ["gone-${i}"]) { deleteCount }`);
    const mutation = `mutation { ${fields.join(' ')} }`;
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 700 });
    const key = randomUUID();
    const startedAt = Date.now();
    const first = send(browser, key, mutation, {});
    await pause(11_500);
    const during = await send(browser, key, mutation, {});
    const ranFor = Date.now() - startedAt;
    expect(code(during)).toBe('IDEMPOTENCY_KEY_IN_USE');
    const answer = await first;
    expect(answer.status).toBe(200);
    // The first was still running when the repeat came (what this test is about).
    expect(Date.now() - startedAt).toBeGreaterThan(ranFor);
    const again = await send(browser, key, mutation, {});
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(answer.text);
    expect(await calls('deleteStatements')).toBe(17);
  });

  it.each([['the fast path', 'true'], ['Mesh\'s execution', 'false']])('runs a mutation whose client went away to its end on %s, and keeps its real answer', async (_path, fastPath) => {
    const gateway = await gatewayWith({ FAST_PATH: fastPath });
    const browser = await signedIn(gateway.url);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 600 });
    const key = randomUUID();
    const variables = fw2(`left-${randomUUID()}`);
    const gone = new AbortController();
    const aborted = send(browser, key, ADD_FW2, variables, gateway.url, gone.signal);
    await pause(150);
    gone.abort();
    await expect(aborted).rejects.toThrow();
    await pause(1_000);
    const again = await send(browser, key, ADD_FW2, variables, gateway.url);
    // The mutation ran once, to its end, and its answer is the one kept: not a lost call's 503.
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await calls('addFw2Statements')).toBe(1);
  });

  it('refuses a new key once the identity\'s kept answers reach IDEMPOTENCY_MAX_BYTES, and still replays the kept ones', async () => {
    const gateway = await gatewayWith({ IDEMPOTENCY_MAX_BYTES: '1KiB' });
    const email = `bytes-${randomUUID()}@example.com`;
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: 'bytes-password-0123456789' });
    const browser = await signedIn(gateway.url, email, 'bytes-password-0123456789');
    // Random identifiers do not compress: the kept answer is well over 1 KiB as stored.
    const many = { s: Array.from({ length: 40 }, () => ({ uploaderId: randomUUID(), recipientFirstName: 'Ada' })) };
    const key = randomUUID();
    const first = await send(browser, key, ADD_FW2, many);
    expect(first.status).toBe(200);
    const refused = await send(browser, randomUUID(), ADD_FW2, fw2('one-more'));
    expect(refused.status).toBe(429);
    expect(code(refused)).toBe('RATE_LIMITED');
    // Until the oldest kept answer expires (IDEMPOTENCY_TTL, 24 h by default).
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(86_000);
    const replay = await send(browser, key, ADD_FW2, many);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    // Another identity has a bound of its own.
    const demo = await signedIn(gateway.url);
    expect((await send(demo, randomUUID(), ADD_FW2, fw2(`other-${randomUUID()}`))).status).toBe(200);
    expect(await calls('addFw2Statements')).toBe(2);
  });

  it('refuses a keyed mutation that selects pdf with BAD_REQUEST, and sends nothing upstream', async () => {
    const gateway = await gatewayWith({});
    const browser = await signedIn(gateway.url);
    const withPdf = 'mutation Add($s: [Fw2Input!]!) { addFw2Statements(statements: $s) { statements { statement { ...Files } } } } fragment Files on Fw2Statement { file: pdf }';
    const refused = await send(browser, randomUUID(), withPdf, fw2('pdf-1'));
    expect(refused.status).toBe(400);
    expect(code(refused)).toBe('BAD_REQUEST');
    expect(await calls('addFw2Statements')).toBe(0);
  });

  it('finds a record made under a key of CREDENTIAL_KEY_PREVIOUS: rotating the key re-runs nothing', async () => {
    const oldKey = randomBytes(32).toString('base64');
    const before = await gatewayWith({ CREDENTIAL_KEY: oldKey });
    const after = await gatewayWith({ CREDENTIAL_KEY: randomBytes(32).toString('base64'), CREDENTIAL_KEY_PREVIOUS: oldKey });
    const browser = await signedIn(before.url);
    const key = randomUUID();
    const uploaderId = `rotated-${randomUUID()}`;
    const first = await send(browser, key, ADD_FW2, fw2(uploaderId), before.url);
    // The same session, now served by a replica with the new key.
    const replay = await send(browser, key, ADD_FW2, fw2(uploaderId), after.url);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(code(await send(browser, key, ADD_FW2, fw2('another'), after.url))).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await calls('addFw2Statements')).toBe(1);
  });
});
