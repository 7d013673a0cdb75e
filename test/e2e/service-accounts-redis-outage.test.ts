/**
 * Service-account requests keep working while Redis is down (the contract): each replica then
 * keeps its own copy of the credential and signs in for itself. The Redis here is the test's own.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { takeUpstreamRequests } from '../support/cache';
import { control } from '../support/emulator';
import { useGatewayOnOwnRedis } from '../support/gateway';
import { callWithKey, serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';
import { timed } from '../support/timing';

const before = testServiceAccount('before-outage');
const during = testServiceAccount('during-outage');
const setup = useGatewayOnOwnRedis(serviceAccountsEnv([before, during]));
const { sandbox, gateway } = setup;

const GREETING = '{ secretGreeting { response } }';
const signIns = async () => (await takeUpstreamRequests(sandbox.url)).filter((request) => request.path === '/v2/auth/sign_in').length;

describe('service accounts while Redis is down', () => {
  it('go on with the credential in hand, sign in for themselves when they have none, and share again once Redis is back', async () => {
    for (const account of [before, during]) {
      expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password })).status).toBe(201);
    }
    expect((await callWithKey(gateway.current.url, before.key, GREETING)).status).toBe(200);
    expect(await signIns()).toBe(1);

    await setup.redis.stop();
    try {
      for (const account of [before, during, before, during]) {
        const { value, ms } = await timed(() => callWithKey(gateway.current.url, account.key, GREETING));
        expect(value.codes).toEqual([]);
        expect(value.body.data?.secretGreeting.response).toContain(account.email);
        expect(ms).toBeLessThan(2_000);
      }
      // Only the account without a credential in hand signed in, once.
      expect(await signIns()).toBe(1);
    } finally {
      await setup.redis.start();
    }

    // Once the client has reconnected, the next request finds the restarted Redis empty, signs in
    // and shares the credential again (sealed: no token in clear).
    const probe = new Redis(setup.redis.url);
    try {
      const deadline = Date.now() + 8_000;
      let sealed: string | null = null;
      while (Date.now() < deadline && !sealed) {
        expect((await callWithKey(gateway.current.url, during.key, GREETING)).status).toBe(200);
        sealed = await probe.get(`sgw:account:{${during.name}}:credential`);
        if (!sealed) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(sealed).toMatch(/^v3\./);
    } finally {
      probe.disconnect();
    }
  });
});
