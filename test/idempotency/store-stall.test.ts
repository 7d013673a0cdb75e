/**
 * A session store that stalls while a claim is on its way: the gateway gives up (the claim's
 * command times out, SESSION_STORE_UNAVAILABLE) but the store runs the claim once it resumes. That
 * claim's own token takes it back, so the mutation, which never ran, is not kept as "outcome
 * unknown" for a day: the client's retry runs it, once. A Redis of the test's own, paused.
 */
import { describe, expect, it } from 'vitest';
import { control } from '../support/emulator';
import { useGatewayOnOwnRedis } from '../support/gateway';
import { serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';

const account = testServiceAccount('store-stall');
const setup = useGatewayOnOwnRedis({ ...serviceAccountsEnv([account]), UPSTREAM_TIMEOUT_MS: '1000' });
const { sandbox, gateway } = setup;
const ADD = 'mutation { addFw2Statements(statements: [{ uploaderId: "stall" }]) { errors } }';

async function call(key: string | undefined) {
  const response = await fetch(`${gateway.current.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.key}`, ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify({ query: ADD }),
  });
  const body = JSON.parse(await response.text()) as { errors?: { extensions?: { code?: string } }[] };
  return { status: response.status, code: body.errors?.[0]?.extensions?.code, replayed: response.headers.get('idempotent-replayed') };
}
const adds = async () => (await control<{ operations: string[] }[]>(sandbox.url, 'GET', '/__emulator/requests')).body.filter((entry) => entry.operations.includes('addFw2Statements')).length;

describe('an idempotent mutation while the session store stalls', () => {
  it('takes back a claim that reached the store after the request gave up, so the retry runs it once', { timeout: 30_000 }, async () => {
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password });
    // Signed in once (no key): the stalled request below waits only on its claim.
    expect((await call(undefined)).status).toBe(200);
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    setup.redis.pause();
    let during;
    try {
      during = await call('stalled-key');
    } finally {
      setup.redis.resume();
    }
    expect(during.code).toBe('SESSION_STORE_UNAVAILABLE');
    expect(await adds()).toBe(0);
    await expect.poll(async () => (await call('stalled-key')).status, { timeout: 5_000, interval: 300 }).toBe(200);
    const replay = await call('stalled-key');
    expect(replay.replayed).toBe('true');
    expect(await adds()).toBe(1);
  });
});
