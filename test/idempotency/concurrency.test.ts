/**
 * Idempotent mutations under concurrency and across principals, from an independent review of the
 * first hardened version: claims racing on two names of one record (a CREDENTIAL_KEY rotation),
 * many keys of one identity claimed at once against IDEMPOTENCY_MAX_BYTES, and a browser user and a
 * service account of the same upstream user. In-process gateways on the test Redis.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT } from '../support/emulator';
import { Browser } from '../support/gateway';
import { ADD_FW2, code, fw2, send, useOwnGateways, type RawAnswer } from '../support/idempotency';
import { serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';

const { sandbox, gatewayWith, calls } = useOwnGateways();
const adds = () => calls('addFw2Statements');
const ran = (answer: RawAnswer) => answer.status === 200 && answer.headers.get('idempotent-replayed') === null;

describe('idempotent mutations under concurrency', () => {
  it('runs a key sent at once to both steps of a CREDENTIAL_KEY rotation at most once (claim, then look under the other name)', { timeout: 60_000 }, async () => {
    const oldKey = randomBytes(32).toString('base64');
    const newKey = randomBytes(32).toString('base64');
    const step1 = await gatewayWith({ CREDENTIAL_KEY: oldKey, CREDENTIAL_KEY_PREVIOUS: newKey });
    const step2 = await gatewayWith({ CREDENTIAL_KEY: newKey, CREDENTIAL_KEY_PREVIOUS: oldKey });
    const browser = new Browser(step1.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 100 });
    const rounds = 12;
    for (let round = 0; round < rounds; round++) {
      const key = randomUUID();
      const variables = fw2(`race-${randomUUID()}`);
      const answers = await Promise.all([send(browser, key, ADD_FW2, variables, step1.url), send(browser, key, ADD_FW2, variables, step2.url)]);
      expect(answers.filter(ran).length, `round ${round}`).toBeLessThanOrEqual(1);
      // Both claims may have seen each other and answered 409 (neither ran): the client's retry runs it then.
      const retry = await send(browser, key, ADD_FW2, variables, round % 2 ? step1.url : step2.url);
      expect(retry.status, `round ${round}`).toBe(200);
      expect(answers.filter(ran).length + (ran(retry) ? 1 : 0), `round ${round}`).toBe(1);
    }
    // Each key ran upstream exactly once.
    expect(await adds()).toBe(rounds);
  });

  it('admits at most 8 keys of one identity running at once, so concurrent requests cannot pass IDEMPOTENCY_MAX_BYTES together', async () => {
    const gateway = await gatewayWith({ IDEMPOTENCY_MAX_BYTES: '1KiB' });
    const email = `burst-${randomUUID()}@example.com`;
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: 'burst-password-0123456789' });
    const browser = new Browser(gateway.url);
    expect((await browser.login(email, 'burst-password-0123456789')).codes).toEqual([]);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 300 });
    const many = () => ({ s: Array.from({ length: 40 }, () => ({ uploaderId: randomUUID(), recipientFirstName: 'Ada' })) });
    const answers = await Promise.all(Array.from({ length: 30 }, () => send(browser, randomUUID(), ADD_FW2, many())));
    const statuses = answers.map((answer) => answer.status);
    // The first claim reserves 64 KiB, past the 1 KiB bound: the others wait for the answers' sizes.
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(8);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(22);
    expect(answers.filter((answer) => answer.status === 429).every((answer) => code(answer) === 'RATE_LIMITED' && Number(answer.headers.get('retry-after')) >= 1)).toBe(true);
    expect(await adds()).toBe(statuses.filter((status) => status === 200).length);
  });

  it('keeps a service account\'s keys apart from a browser session of the same upstream user', async () => {
    const account = testServiceAccount(`apart-${randomUUID().slice(0, 8)}`);
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password });
    const gateway = await gatewayWith(serviceAccountsEnv([account]));
    const person = new Browser(gateway.url);
    expect((await person.login(account.email, account.password)).codes).toEqual([]);
    // A key the integration will use (an invoice number), taken first by a person signed in as its user.
    const predictable = `batch-${randomUUID()}`;
    expect((await send(person, predictable, ADD_FW2, fw2(`person-${randomUUID()}`))).status).toBe(200);
    const response = await fetch(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${account.key}`, 'idempotency-key': predictable },
      body: JSON.stringify({ query: ADD_FW2, variables: fw2('integration-1') }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect(await adds()).toBe(2);
  });
});
