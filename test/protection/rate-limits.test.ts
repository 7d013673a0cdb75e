/**
 * Rate limits on two gateway processes sharing one Redis, with strict figures: login per address
 * and e-mail (3/min), per address (6/min) and per account (5/min, then waits of 1, 2, 4 s ...),
 * per identity (8 root fields/min) and without one (5 operations/min per address). Logins go
 * through `login` and the drop-in front's sign-in alike. Client addresses come from
 * X-Forwarded-For with TRUST_PROXY=1 (one proxy in front), random per test so that counters left
 * in Redis by earlier runs never matter.
 */
import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { takeUpstreamRequests } from '../support/cache';
import { control, credentialFrom } from '../support/emulator';
import { Browser, useGatewayReplicas } from '../support/gateway';

const PASSWORD = 'a-long-enough-password-123';
// Behind a proxy /metrics is not loopback: it needs the token.
const OPS_TOKEN = 'ops-token-for-the-rate-limit-test';
const { sandbox, gateways } = useGatewayReplicas(2, {
  TRUST_PROXY: '1',
  OPS_TOKEN,
  RATE_LIMIT_LOGIN: '3/1m',
  RATE_LIMIT_LOGIN_ADDRESS: '6/1m',
  RATE_LIMIT_LOGIN_ACCOUNT: '5/1m',
  RATE_LIMIT_SESSION: '8/1m',
  RATE_LIMIT_ANONYMOUS: '5/1m',
});

const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const randomPrefix = () => `2001:db8:${randomInt(65536).toString(16)}:${randomInt(65536).toString(16)}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `POST /v2/auth/sign_in` on gateway `index % 2`, from `address` behind the trusted proxy. */
async function frontSignIn(address: string, index: number, email: string, password: string, form = false) {
  const response = await fetch(`${gateways[index % 2]!.url}/v2/auth/sign_in`, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json', 'x-forwarded-for': address },
    body: form ? new URLSearchParams({ email, password }).toString() : JSON.stringify({ email, password }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

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
        // The same wait in the error, for pages that cannot read the header.
        expect(answer.body.errors?.[0]?.extensions?.retryAfterSeconds).toBe(Number(answer.headers.get('retry-after')));
        expect(JSON.stringify(answer.body)).not.toContain(browser.cookie?.split('=')[1] ?? '-');
      }
    }
    // The login ran before the session existed: eight calls pass, the ninth is refused.
    expect(statuses).toEqual([...Array(8).fill(200), 429]);
  });
});

describe('login limits on login and the front alike', () => {
  it('admits five correct logins in a row from one address: successes do not count (regression)', async () => {
    const email = await newAccount();
    const address = randomAddress();
    for (let login = 0; login < 5; login++) expect((await browserAt(address, login).login(email, PASSWORD)).codes).toEqual([]);
  });

  it('counts IPv6 clients by their /64 for the per-address limit', async () => {
    const prefix = randomPrefix();
    const codes: string[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      codes.push((await browserAt(`${prefix}:${randomInt(65536).toString(16)}::${attempt + 1}`, attempt).login(`nobody-${randomInt(1e9)}@example.com`, 'guess-password-000000')).codes.join());
    }
    expect(codes).toEqual([...Array(6).fill('INVALID_CREDENTIALS'), 'RATE_LIMITED']);
    expect((await browserAt(`${randomPrefix()}::1`, 0).login(`nobody-${randomInt(1e9)}@example.com`, 'guess-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
  });

  it('refuses the front sign-in after three wrong passwords, the right one too, with 429, Retry-After and a devise-shaped body', async () => {
    const email = await newAccount();
    const address = randomAddress();
    // The e-mail is found in a form as in JSON, however it is typed.
    for (let attempt = 0; attempt < 3; attempt++) expect((await frontSignIn(address, attempt, attempt === 1 ? email.toUpperCase() : email, 'wrong-password-000000', attempt === 2)).status).toBe(401);
    const refused = await frontSignIn(address, 3, email, PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('content-type')).toContain('application/json');
    expect(refused.headers.get('access-token')).toBeNull();
    const body = JSON.parse(refused.text) as { success: boolean; errors: unknown[] };
    expect(body.success).toBe(false);
    expect(body.errors).toEqual([expect.any(String)]);
    expect(refused.text).not.toContain(email);
    expect(refused.text).not.toContain(address);
  });

  it('counts a form sign-in under the e-mail the upstream checks: a decoy e-mail before the target\'s buys no attempts (regression)', async () => {
    const email = await newAccount();
    const address = randomAddress();
    const decoyed = (password: string, index: number) =>
      fetch(`${gateways[index % 2]!.url}/v2/auth/sign_in`, {
        method: 'POST',
        headers: { 'content-type': 'Application/X-WWW-Form-Urlencoded', 'x-forwarded-for': address },
        body: `email=${encodeURIComponent(`decoy-${randomInt(1e9)}@example.com`)}&email=${encodeURIComponent(email)}&password=${encodeURIComponent(password)}`,
      });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) statuses.push((await decoyed('wrong-password-000000', attempt)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await decoyed(PASSWORD, 0)).status).toBe(429);
  });

  it('answers a sign-in body without a readable e-mail and password as devise does, without asking the upstream', async () => {
    await takeUpstreamRequests(sandbox.url);
    for (const [type, body] of [['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.c\r\n--x--'], ['application/json', '{"email": ["a@b.c"], "password": "x"}'], ['text/plain', 'email=a@b.c&password=x']]) {
      const response = await fetch(`${gateways[0]!.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': type ?? '', 'x-forwarded-for': randomAddress() }, body });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ success: false, errors: ['Invalid login credentials. Please try again.'] });
    }
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
  });

  it('counts sign-ins through the front and logins against the same counters', async () => {
    const email = await newAccount();
    const address = randomAddress();
    expect((await browserAt(address, 0).login(email, 'wrong-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
    expect((await frontSignIn(address, 1, email, 'wrong-password-000000')).status).toBe(401);
    expect((await browserAt(address, 1).login(email, 'wrong-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
    expect((await browserAt(address, 0).login(email, PASSWORD)).codes).toEqual(['RATE_LIMITED']);
    expect((await frontSignIn(address, 1, email, PASSWORD)).status).toBe(429);

    // A success through the front clears the failures of that address and e-mail for login too.
    const second = await newAccount();
    const other = randomAddress();
    expect((await browserAt(other, 0).login(second, 'wrong-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
    expect((await browserAt(other, 1).login(second, 'wrong-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
    expect((await frontSignIn(other, 0, second, PASSWORD)).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++) expect((await browserAt(other, attempt).login(second, 'wrong-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
  });

  it('backs off one account guessed from many addresses: Retry-After 1, 2 then 4 s, and a successful login after the wait clears it', async () => {
    const email = await newAccount();
    // Five failures from five addresses (the fifth starts a wait of 1 s), half through the front.
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt % 2) expect((await frontSignIn(randomAddress(), attempt, email, 'wrong-password-000000')).status).toBe(401);
      else expect((await browserAt(randomAddress(), attempt).login(email, 'wrong-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
    }
    const waits: number[] = [];
    for (let round = 0; round < 3; round++) {
      const refused = await browserAt(randomAddress(), round).login(email, PASSWORD);
      expect(refused.codes).toEqual(['RATE_LIMITED']);
      const front = await frontSignIn(randomAddress(), round + 1, email, PASSWORD);
      expect(front.status).toBe(429);
      waits.push(Number(refused.headers.get('retry-after')));
      await sleep(waits[round]! * 1_000 + 100);
      // One attempt once the wait is over; if it fails, the next wait is twice as long.
      if (round < 2) expect((await browserAt(randomAddress(), round).login(email, 'wrong-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
    }
    expect(waits).toEqual([1, 2, 4]);
    expect((await browserAt(randomAddress(), 1).login(email, PASSWORD)).codes).toEqual([]);
    // Cleared: the next failure is an ordinary one.
    expect((await frontSignIn(randomAddress(), 0, email, 'wrong-password-000000')).status).toBe(401);
    expect((await frontSignIn(randomAddress(), 1, email, PASSWORD)).status).toBe(200);
  }, 30_000);
});

describe('the anonymous rate limit', () => {
  it('refuses confirmRegistration guesses from one address past five a minute, whatever the token', async () => {
    const address = randomAddress();
    const codes: string[] = [];
    for (let guess = 0; guess < 7; guess++) {
      const answer = await browserAt(address, guess).graphql('mutation($t: String!, $p: String!) { confirmRegistration(confirmationToken: $t, password: $p) { message errors } }', { t: `guess-${randomInt(1e9)}`, p: PASSWORD });
      codes.push(answer.codes.join() === 'RATE_LIMITED' ? 'RATE_LIMITED' : 'answered');
      if (answer.status === 429) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(codes).toEqual([...Array(5).fill('answered'), 'RATE_LIMITED', 'RATE_LIMITED']);
    // A throwaway login beside the guess does not carry it past the limit: such a document is refused whole.
    const disguised = await browserAt(address, 0).graphql('mutation($t: String!, $p: String!) { login(email: "", password: "") { uid } confirmRegistration(confirmationToken: $t, password: $p) { message } }', { t: 'guess', p: PASSWORD });
    expect(disguised.codes).toEqual(['BAD_REQUEST']);
    // Another address is not limited.
    expect((await browserAt(randomAddress(), 0).graphql('{ __typename }')).codes).toEqual([]);
  });

  it('counts guesses passed through the drop-in front without a verified credential on the same counter as /graphql', async () => {
    const address = randomAddress();
    const guess = (index: number, headers: Record<string, string> = {}) =>
      fetch(`${gateways[index % 2]!.url}/v2/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address, ...headers },
        body: JSON.stringify({ query: `mutation { confirmRegistration(confirmationToken: "guess-${randomInt(1e9)}", password: "${PASSWORD}") { message } }` }),
      });
    for (let attempt = 0; attempt < 3; attempt++) expect((await guess(attempt)).status).toBe(200);
    // Two through /graphql from the same address: the limit of five is then spent.
    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await browserAt(address, attempt).graphql('mutation { confirmRegistration(confirmationToken: "x", password: "y") { message } }')).codes).toEqual([]);
    }
    // A forged credential is passed through as well: it does not buy another guess.
    const refused = await guess(1, { 'access-token': 'forged', client: 'forged', uid: 'someone@example.com' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('RATE_LIMITED');
  });
});

describe('the session rate limit counts root fields in total', () => {
  it('refuses the fifth operation of two different root fields under a limit of eight', async () => {
    const browser = browserAt(randomAddress(), 0);
    expect((await browser.login(await newAccount(), PASSWORD)).codes).toEqual([]);
    const statuses: number[] = [];
    for (let call = 0; call < 5; call++) statuses.push((await browser.graphql('{ secretGreeting { response } __typename }')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('limits a drop-in front credential as a browser session, each sign-in on its own', async () => {
    const email = await newAccount();
    const signedIn = await frontSignIn(randomAddress(), 0, email, PASSWORD);
    expect(signedIn.status).toBe(200);
    const credential = credentialFrom(signedIn.headers);
    const statuses: number[] = [];
    for (let call = 0; call < 9; call++) {
      const response = await fetch(`${gateways[call % 2]!.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: JSON.stringify({ query: '{ secretGreeting { response } }' }) });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      await response.body?.cancel();
    }
    expect(statuses).toEqual([...Array(8).fill(200), 429]);

    const again = credentialFrom((await frontSignIn(randomAddress(), 1, email, PASSWORD)).headers);
    const other = await fetch(`${gateways[0]!.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...again }, body: JSON.stringify({ query: '{ secretGreeting { response } }' }) });
    expect(other.status).toBe(200);
  });
});
