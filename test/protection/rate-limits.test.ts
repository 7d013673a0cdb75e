/**
 * Rate limits on two gateway processes sharing one Redis, with strict figures: login per address
 * and e-mail (3/min) and per address (6/min), and per session (8 root fields/min). Client
 * addresses come from X-Forwarded-For with TRUST_PROXY=1 (one proxy in front), random per test so
 * that counters left in Redis by earlier runs never matter.
 */
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { control } from '../helpers/emulator';
import { Browser, useGatewayReplicas } from '../helpers/gateway';

const PASSWORD = 'a-long-enough-password-123';
// Behind a proxy /metrics is not loopback: it needs the token.
const OPS_TOKEN = 'ops-token-for-the-rate-limit-test';
const { sandbox, gateways } = useGatewayReplicas(2, {
  TRUST_PROXY: '1',
  OPS_TOKEN,
  RATE_LIMIT_LOGIN: '3/1m',
  RATE_LIMIT_LOGIN_ADDRESS: '6/1m',
  RATE_LIMIT_SESSION: '8/1m',
});

const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

async function newAccount(): Promise<string> {
  const email = `limits-${Date.now()}-${randomInt(1e9)}@example.com`;
  expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
  return email;
}

/** A browser behind the trusted proxy, at `address`, on gateway `index % 2`. */
function browserAt(address: string, index: number, spoofed?: string): Browser {
  const browser = new Browser(gateways[index % 2]!.url);
  const forwarded = spoofed ? `${spoofed}, ${address}` : address;
  const graphql = browser.graphql.bind(browser);
  browser.graphql = (query, variables, options = {}) => graphql(query, variables, { ...options, headers: { ...(options.headers ?? {}), 'x-forwarded-for': forwarded } });
  return browser;
}

describe('login rate limits', () => {
  it('refuses a fourth attempt on one account from one address, even with the right password, across both replicas', async () => {
    const email = await newAccount();
    const address = randomAddress();
    for (let attempt = 0; attempt < 3; attempt++) {
      // Each attempt from a new spoofed left-hand entry: only the proxy's entry counts.
      expect((await browserAt(address, attempt, randomAddress()).login(email, 'wrong-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
    }
    const refusedBrowser = browserAt(address, 3);
    const refused = await refusedBrowser.login(email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.codes).toEqual(['RATE_LIMITED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // A sliding window: the full window's count weighs on into the next one (at most two windows).
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(120);
    expect(refusedBrowser.cookie).toBeUndefined();
    const text = JSON.stringify(refused.body);
    expect(text).not.toContain(address);
    expect(text).not.toContain(email);

    // The same account from another address, and another account from this one, still work.
    expect((await browserAt(randomAddress(), 0).login(email, PASSWORD)).codes).toEqual([]);
    expect((await browserAt(address, 1).login(await newAccount(), PASSWORD)).codes).toEqual([]);
  });

  it('refuses a seventh login from one address whatever the e-mail (credential stuffing)', async () => {
    const address = randomAddress();
    const codes: string[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      codes.push((await browserAt(address, attempt).login(`nobody-${attempt}-${randomInt(1e9)}@example.com`, 'guess-password-000000')).codes.join());
    }
    expect(codes).toEqual([...Array(6).fill('INVALID_CREDENTIALS'), 'RATE_LIMITED', 'RATE_LIMITED']);
    const metrics = await (await fetch(`${gateways[0]!.url}/metrics`, { headers: { authorization: `Bearer ${OPS_TOKEN}` } })).text();
    expect(metrics).toMatch(/^statement_gateway_rate_limited_total\{limit="login-address"\} [1-9]/m);
  });

  it('counts concurrent attempts atomically: 20 at once on two replicas admit exactly three', async () => {
    const email = await newAccount();
    const address = randomAddress();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => browserAt(address, index).login(email, 'wrong-password-000000')));
    const codes = answers.map((answer) => answer.codes.join());
    expect(codes.filter((code) => code === 'INVALID_CREDENTIALS')).toHaveLength(3);
    expect(codes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(17);
  });
});

describe('the session rate limit', () => {
  it('refuses root fields past the limit with 429 and Retry-After, on both replicas, without naming the session', async () => {
    const browser = browserAt(randomAddress(), 0);
    expect((await browser.login(await newAccount(), PASSWORD)).codes).toEqual([]);
    const other = new Browser(gateways[1]!.url);
    other.cookie = browser.cookie;
    const statuses: number[] = [];
    for (let call = 0; call < 9; call++) {
      const answer = await (call % 2 ? other : browser).graphql('{ secretGreeting { response } }');
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(answer.codes).toEqual(['RATE_LIMITED']);
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(JSON.stringify(answer.body)).not.toContain(browser.cookie?.split('=')[1] ?? '-');
      }
    }
    // The login ran before the session existed: eight calls pass, the ninth is refused.
    expect(statuses).toEqual([...Array(8).fill(200), 429]);
  });
});
