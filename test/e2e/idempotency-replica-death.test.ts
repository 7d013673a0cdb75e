/**
 * A replica that dies while it runs a keyed mutation (SIGKILL: no drain, no answer kept) leaves its
 * claim behind. Another replica never runs that key again: it answers IDEMPOTENCY_KEY_IN_USE while
 * the dead one's lease could still hold, then, within UPSTREAM_TIMEOUT_MS + 10 s of its last
 * renewal, a kept UPSTREAM_UNAVAILABLE ("outcome unknown"), replayed byte for byte without retry
 * hints. The first version held the claim for a fixed time and then let the key run again.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, startGatewayProcess, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { ADD_FW2, code, firstError, fw2, send } from '../support/idempotency';
import type { Launched } from '../support/launcher';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const TIMEOUT_MS = 2_000;
const LEASE_MS = TIMEOUT_MS + 10_000;

let dying: Launched | undefined;
let survivor: TestGateway | undefined;
afterAll(async () => {
  await dying?.stop({ forceAfterMs: 500 });
  await survivor?.stop();
});

const adds = async () => (await control<{ operations: string[] }[]>(sandbox.url, 'GET', '/__emulator/requests')).body.filter((entry) => entry.operations.includes('addFw2Statements')).length;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a replica that dies mid-mutation', () => {
  it('leaves its key in use, then kept as UPSTREAM_UNAVAILABLE on every replica, never run a second time', { timeout: 120_000 }, async () => {
    const env = { UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY, UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) };
    [dying, survivor] = await Promise.all([startGatewayProcess(env), startTestGateway(env)]);
    const browser = new Browser(survivor.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 1_500 });
    const key = randomUUID();
    const variables = fw2(`died-${randomUUID()}`);
    const claimedAt = Date.now();
    const lost = send(browser, key, ADD_FW2, variables, dying.url).catch(() => undefined);
    await pause(500);
    dying.child.kill('SIGKILL');
    await dying.exited;
    await lost;
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 0 });

    expect(code(await send(browser, key, ADD_FW2, variables, survivor.url))).toBe('IDEMPOTENCY_KEY_IN_USE');
    // What the dead replica's call came to upstream (it may have been applied); nothing is added to it.
    await pause(2_000);
    const applied = await adds();
    expect(applied).toBeLessThanOrEqual(1);

    await pause(Math.max(0, claimedAt + LEASE_MS + 500 - Date.now()));
    const unknown = await send(browser, key, ADD_FW2, variables, survivor.url);
    expect(unknown.status).toBe(503);
    expect(code(unknown)).toBe('UPSTREAM_UNAVAILABLE');
    expect(unknown.headers.get('idempotent-replayed')).toBe('true');
    expect(unknown.headers.get('retry-after')).toBeNull();
    expect(firstError(unknown)?.extensions).not.toHaveProperty('retryAfterSeconds');
    const again = await send(browser, key, ADD_FW2, variables, survivor.url);
    expect(again.text).toBe(unknown.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await adds()).toBe(applied);
  });
});
