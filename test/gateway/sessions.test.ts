/**
 * Browser sessions end to end: the cookie, CSRF and origin, login and logout, expiry by the
 * upstream, rotated tokens. Real Redis, the gateway in its own process, the emulator over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT } from '../support/emulator';
import { Browser, useGatewayBehindRecordingProxy } from '../support/gateway';

const setup = useGatewayBehindRecordingProxy({ ALLOWED_ORIGINS: 'https://app.example.com' });
const { sandbox, production, gateway } = setup;

const GREETING = '{ secretGreeting { response errors } }';
const browser = () => new Browser(gateway.current.url);

async function signedIn(): Promise<Browser> {
  const b = browser();
  const login = await b.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
  expect(login.codes).toEqual([]);
  return b;
}

/** Every credential value the upstream handed out so far (from the recording proxy). */
function upstreamSecrets(): string[] {
  const secrets = new Set<string>();
  for (const exchange of setup.proxy.exchanges) {
    for (const name of ['access-token', 'client', 'authorization']) {
      const value = exchange.responseHeaders[name]?.trim();
      if (value) secrets.add(value);
    }
  }
  return [...secrets];
}

describe('login', () => {
  it('sets a cookie with the contract\'s attributes and puts no credential anywhere in the response', async () => {
    const response = await fetch(`${gateway.current.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf': '1' },
      body: JSON.stringify({ query: `mutation { login(email: "${DEMO_ACCOUNT.email}", password: "${DEMO_ACCOUNT.password}") { uid environment expiresAt } }` }),
    });
    const body = await response.text();
    expect(response.status).toBe(200);
    const [cookie, ...others] = response.headers.getSetCookie();
    expect(others).toEqual([]);
    // Upstream URLs are configured, so COOKIE_SECURE defaults to true: Secure and __Host-.
    // The user's keyed name (the index's hash tag), then 256 random bits.
    expect(cookie).toMatch(/^__Host-sgw_session=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43};/);
    const attributes = (cookie ?? '').split(';').slice(1).map((part) => part.trim().toLowerCase());
    expect(attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=strict', 'path=/', 'secure']));
    expect(attributes.some((attribute) => attribute.startsWith('domain'))).toBe(false);
    // A browser-session cookie: the idle and absolute timeouts live on the server.
    expect(attributes.some((attribute) => attribute.startsWith('max-age') || attribute.startsWith('expires'))).toBe(false);

    const secrets = upstreamSecrets();
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    const everything = `${body}\n${[...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n')}`;
    for (const secret of secrets) expect(everything).not.toContain(secret);
    for (const name of ['access-token', 'client', 'uid', 'authorization', 'expiry', 'token-type']) expect(response.headers.get(name)).toBeNull();
  });

  it('refuses a wrong password with INVALID_CREDENTIALS and sets no cookie', async () => {
    const b = browser();
    const answer = await b.login(DEMO_ACCOUNT.email, 'not-the-password');
    expect(answer.status).toBe(401);
    expect(answer.codes).toEqual(['INVALID_CREDENTIALS']);
    expect(b.lastSetCookie).toEqual([]);
  });

  it('refuses a login without the X-CSRF header', async () => {
    const answer = await browser().graphql(`mutation { login(email: "${DEMO_ACCOUNT.email}", password: "${DEMO_ACCOUNT.password}") { uid } }`, undefined, { csrf: false });
    expect(answer.status).toBe(403);
    expect(answer.codes).toEqual(['CSRF_CHECK_FAILED']);
  });

  it('a second login replaces the cookie and the old one stops working, other browsers untouched', async () => {
    const first = await signedIn();
    const other = await signedIn();
    const oldCookie = first.cookie;
    expect((await first.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    expect(first.cookie).not.toBe(oldCookie);
    expect((await first.graphql(GREETING)).codes).toEqual([]);

    const stale = browser();
    stale.cookie = oldCookie;
    const refused = await stale.graphql(GREETING);
    expect(refused.status).toBe(401);
    expect(refused.codes).toEqual(['UNAUTHENTICATED']);
    expect((await other.graphql(GREETING)).codes).toEqual([]);
  });
});

describe('session', () => {
  it('reports the uid, the environment and an ISO-8601 end', async () => {
    const b = await signedIn();
    const answer = await b.graphql<{ session: { uid: string; environment: string; expiresAt: string } }>('{ session { uid environment expiresAt } }');
    expect(answer.body.data?.session).toMatchObject({ uid: DEMO_ACCOUNT.email, environment: 'SANDBOX' });
    const end = Date.parse(answer.body.data?.session.expiresAt ?? '');
    expect(end).toBeGreaterThan(Date.now() + 7 * 3_600_000);
    expect(answer.body.data?.session.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('remembers the production environment of a production login', async () => {
    const b = browser();
    expect((await b.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password, 'PRODUCTION')).codes).toEqual([]);
    expect((await b.graphql('{ session { environment } }')).body.data).toEqual({ session: { environment: 'PRODUCTION' } });
    await b.graphql(GREETING);
    const requests = await control<{ path: string }[]>(production.url, 'GET', '/__emulator/requests');
    expect(requests.body.map((r) => r.path)).toContain('/v2/graphql');
  });
});

describe('requests without a valid session', () => {
  it('refuses an upstream operation without a cookie with UNAUTHENTICATED', async () => {
    const answer = await browser().graphql(GREETING, undefined, { csrf: false });
    expect(answer.status).toBe(401);
    expect(answer.codes).toEqual(['UNAUTHENTICATED']);
  });

  it('refuses a forged cookie and clears it', async () => {
    const b = browser();
    b.cookie = `__Host-sgw_session=${'A'.repeat(43)}`;
    const answer = await b.graphql(GREETING);
    expect(answer.codes).toEqual(['UNAUTHENTICATED']);
    expect(b.lastSetCookie.join()).toMatch(/Max-Age=0/);
  });

  it('refuses a truncated cookie', async () => {
    const real = await signedIn();
    const b = browser();
    b.cookie = real.cookie?.slice(0, -5);
    expect((await b.graphql(GREETING)).codes).toEqual(['UNAUTHENTICATED']);
  });

  it('refuses an API key when no service account is configured', async () => {
    const answer = await browser().graphql(GREETING, undefined, { csrf: false, headers: { authorization: 'Bearer some-key' } });
    expect(answer.codes).toEqual(['UNAUTHENTICATED']);
  });
});

describe('CSRF and origin', () => {
  it('refuses a cookie request without X-CSRF', async () => {
    const b = await signedIn();
    const answer = await b.graphql(GREETING, undefined, { csrf: false });
    expect(answer.status).toBe(403);
    expect(answer.codes).toEqual(['CSRF_CHECK_FAILED']);
  });

  it('refuses a cookie request from a foreign origin', async () => {
    const b = await signedIn();
    const answer = await b.graphql(GREETING, undefined, { origin: 'https://evil.example.net' });
    expect(answer.status).toBe(403);
    expect(answer.codes).toEqual(['CSRF_CHECK_FAILED']);
  });

  it('says which check failed: the missing header, or the origin seen beside the gateway\'s own', async () => {
    const b = await signedIn();
    const missing = await b.graphql<unknown>(GREETING, undefined, { csrf: false });
    expect(missing.body.errors?.[0]?.message).toMatch(/no X-CSRF header/);
    const foreign = await b.graphql<unknown>(GREETING, undefined, { origin: 'http://localhost:5173' });
    const message = foreign.body.errors?.[0]?.message ?? '';
    expect(message).toContain('"http://localhost:5173" is not allowed');
    expect(message).toContain(`"${new URL(gateway.current.url).origin}"`);
    expect(message).not.toMatch(/X-CSRF header/);
  });

  it('accepts the gateway\'s own origin and the allowed ones', async () => {
    const b = await signedIn();
    expect((await b.graphql(GREETING, undefined, { origin: 'https://app.example.com' })).codes).toEqual([]);
    expect((await b.graphql(GREETING, undefined, { origin: new URL(gateway.current.url).origin })).codes).toEqual([]);
  });
});

describe('logout', () => {
  it('ends the session, signs out upstream and clears the cookie', async () => {
    const b = await signedIn();
    const cookie = b.cookie;
    const answer = await b.graphql('mutation { logout }');
    expect(answer.body.data).toEqual({ logout: true });
    expect(b.lastSetCookie.join()).toMatch(/Max-Age=0/);
    expect(setup.proxy.exchanges.some((exchange) => exchange.method === 'DELETE' && exchange.path === '/v2/auth/sign_out' && exchange.status === 200)).toBe(true);

    const after = browser();
    after.cookie = cookie;
    const refused = await after.graphql(GREETING);
    expect(refused.codes).toEqual(['UNAUTHENTICATED']);
    expect((await after.graphql('{ session { uid } }')).body.data).toEqual({ session: null });
  });
  it('answers true without a session, and again after the session ended (idempotent)', async () => {
    expect((await browser().graphql('mutation { logout }')).body).toEqual({ data: { logout: true } });
    const b = await signedIn();
    expect((await b.graphql('mutation { logout }')).body.data).toEqual({ logout: true });
    const again = await b.graphql('mutation { logout }');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: { logout: true } });
  });
});

describe('the upstream credential', () => {
  it('keeps rotated tokens, sequentially and for concurrent requests inside the batch window', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { rotateTokens: true });
    const b = await signedIn();
    // Racing requests straight after login: several answers rotate the same token at once.
    const burst = await Promise.all(Array.from({ length: 8 }, () => b.graphql(GREETING)));
    expect(burst.flatMap((answer) => answer.codes)).toEqual([]);
    for (let i = 0; i < 4; i++) expect((await b.graphql(GREETING)).codes).toEqual([]);
    const again = await Promise.all(Array.from({ length: 8 }, () => b.graphql(GREETING)));
    expect(again.flatMap((answer) => answer.codes)).toEqual([]);

    // devise rotates twice, then answers inside its batch window; the gateway sent what it got.
    const sent = (setup.proxy.exchanges).filter((e) => e.path === '/v2/graphql').map((e) => e.requestHeaders['access-token']);
    expect(new Set(sent).size).toBeGreaterThanOrEqual(3);
    expect(setup.proxy.exchanges.every((exchange) => exchange.status !== 401)).toBe(true);
  });

  it('ends the session with UNAUTHENTICATED when the upstream refuses the stored credential', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { tokenTtlSeconds: 1 });
    const b = await signedIn();
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const cookie = b.cookie;
    const refused = await b.graphql(GREETING);
    expect(refused.status).toBe(401);
    expect(refused.codes).toEqual(['UNAUTHENTICATED']);
    expect(b.lastSetCookie.join()).toMatch(/Max-Age=0/);
    setup.proxy.exchanges.splice(0);
    const again = browser();
    again.cookie = cookie;
    expect((await again.graphql(GREETING)).codes).toEqual(['UNAUTHENTICATED']);
    // The session is gone: the second refusal did not even reach the upstream.
    expect(setup.proxy.exchanges).toEqual([]);
  });
});

describe('two users at once', () => {
  it('never merges two sessions\' identical concurrent reads into one upstream call (regression)', async () => {
    const password = 'a-long-enough-password-123';
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email: 'alice@example.com', password });
    await control(sandbox.url, 'POST', '/__emulator/accounts', { email: 'bob@example.com', password });
    const alice = browser();
    const bob = browser();
    expect((await alice.login('alice@example.com', password)).codes).toEqual([]);
    expect((await bob.login('bob@example.com', password)).codes).toEqual([]);
    // Slow answers make the two identical queries overlap in flight.
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 400 });
    const [a, b] = await Promise.all([alice.graphql(GREETING), bob.graphql(GREETING)]);
    expect(a.body.data?.secretGreeting.response).toContain('alice@example.com');
    expect(b.body.data?.secretGreeting.response).toContain('bob@example.com');
    const calls = setup.proxy.exchanges.filter((exchange) => exchange.path === '/v2/graphql');
    expect(calls.map((call) => call.requestHeaders.uid).sort()).toEqual(['alice@example.com', 'bob@example.com']);
    expect(calls.every((call) => call.requestHeaders['x-sgw-identity'] === undefined)).toBe(true);
  });
});
