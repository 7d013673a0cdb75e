/**
 * Idempotent mutations fail closed when the session store is down (the contract): a service
 * account keeps working without Redis, but a mutation it sends with an Idempotency-Key is refused
 * with SESSION_STORE_UNAVAILABLE rather than run unprotected. The Redis here is the test's own.
 */
import { describe, expect, it } from 'vitest';
import { control } from '../support/emulator';
import { useGatewayOnOwnRedis } from '../support/gateway';
import { serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';

const account = testServiceAccount('idempotency-outage');
const setup = useGatewayOnOwnRedis(serviceAccountsEnv([account]));
const { sandbox, gateway } = setup;

const ADD = 'mutation { addFw2Statements(statements: [{ uploaderId: "outage" }]) { errors } }';

async function call(key: string | undefined): Promise<{ status: number; code: string | undefined }> {
  const response = await fetch(`${gateway.current.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${account.key}`, ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify({ query: ADD }),
  });
  const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
  return { status: response.status, code: body.errors?.[0]?.extensions?.code };
}

describe('idempotent mutations while the session store is down', () => {
  it('refuses a mutation with an Idempotency-Key with SESSION_STORE_UNAVAILABLE, and runs nothing', async () => {
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password })).status).toBe(201);
    // Signed in and its credential in hand before Redis goes.
    expect(await call(undefined)).toEqual({ status: 200, code: undefined });
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    await setup.redis.stop();
    try {
      expect(await call('outage-key-1')).toEqual({ status: 503, code: 'SESSION_STORE_UNAVAILABLE' });
      const log = await control<{ operations: string[] }[]>(sandbox.url, 'GET', '/__emulator/requests');
      expect(log.body.filter((entry) => entry.operations.includes('addFw2Statements'))).toHaveLength(0);
    } finally {
      await setup.redis.start();
    }
  });
});
