/**
 * Ending sessions across replicas: two gateways on one Redis, with the session cache on (1 s),
 * three browsers of one user. A session ended from another browser, by the operators' revoke, or
 * by the cap is refused on both replicas within SESSION_CACHE_TTL + 1 s (each replica holds it in
 * its cache when it ends), signed out upstream with its own credential, and counted once; a
 * session made before the per-user index keeps working and ends at logout.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../../src/credentials/cipher';
import { createRedisSessionStore } from '../../src/session/redis-session-store';
import { sessionKey } from '../../src/session/sessions';
import { control, signIn } from '../support/emulator';
import { Browser, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGatewayReplicas, type TestGateway } from '../support/gateway';
import { scrape } from '../support/metrics';

const OPS_TOKEN = 'revocation-test-ops-token-0123456789';
const CACHE_TTL_MS = 1_000;
const { sandbox, gateways } = useGatewayReplicas(2, { OPS_TOKEN, SESSION_CACHE_TTL: `${CACHE_TTL_MS}ms`, SESSION_MAX_PER_USER: '3' });
const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.quit());

const PASSWORD = 'a-long-enough-password-123';
const GREETING = '{ secretGreeting { response } }';
const SESSIONS = '{ sessions { id createdAt lastSeenAt userAgent current } }';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const gateway = (index: number): TestGateway => gateways[index] ?? (() => { throw new Error('gateways not started'); })();

interface Listed { id: string; userAgent: string | null; current: boolean; lastSeenAt: string }

/** A browser of `email` on replica `on`, which says `agent` in its User-Agent. */
async function browserOf(email: string, agent: string, on = 0): Promise<Browser> {
  const browser = new Browser(gateway(on).url);
  const login = await browser.graphql('mutation($e: String!, $p: String!) { login(email: $e, password: $p) { uid } }', { e: email, p: PASSWORD }, { headers: { 'user-agent': agent } });
  expect(login.codes).toEqual([]);
  return browser;
}

/** The same browser (its cookie) on replica `on`. */
function on(browser: Browser, index: number): Browser {
  const other = new Browser(gateway(index).url);
  other.cookie = browser.cookie;
  return other;
}

async function newUser(): Promise<string> {
  const email = `revocation-${randomUUID()}@example.com`;
  expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
  return email;
}

/** Until both replicas remember the browser's session (a read answered from their session cache). */
async function rememberedOnBoth(browser: Browser): Promise<void> {
  for (const index of [0, 1]) {
    const hits = async () => (await scrape(gateway(index).url, `Bearer ${OPS_TOKEN}`)).sum('statement_gateway_session_cache_lookups_total', { result: 'hit' });
    const before = await hits();
    const deadline = Date.now() + 15_000;
    let remembered = false;
    while (!remembered && Date.now() < deadline) {
      expect((await on(browser, index).graphql(GREETING)).codes).toEqual([]);
      expect((await on(browser, index).graphql(GREETING)).codes).toEqual([]);
      remembered = (await hits()) > before;
    }
    expect(remembered, `replica ${index} never served the session from its cache`).toBe(true);
  }
}

/** Milliseconds from `since` until the browser's session is refused on both replicas (polled every 10 ms). */
async function refusedOnBoth(browser: Browser, since: number): Promise<number[]> {
  return Promise.all([0, 1].map(async (index) => {
    const copy = on(browser, index);
    for (;;) {
      const answer = await copy.graphql(GREETING);
      if (answer.codes.includes('UNAUTHENTICATED')) return Date.now() - since;
      expect(answer.codes).toEqual([]);
      if (Date.now() - since > CACHE_TTL_MS + 5_000) throw new Error(`replica ${index} still serves the ended session`);
      copy.cookie = browser.cookie;
      await sleep(10);
    }
  }));
}

/** The upstream's sign-outs of `email` since the requests were cleared: their statuses. */
async function signOuts(email: string): Promise<number[]> {
  const requests = await control<{ path: string; uid: string | null; status: number }[]>(sandbox.url, 'GET', '/__emulator/requests');
  return requests.body.filter((request) => request.path === '/v2/auth/sign_out' && request.uid === email).map((request) => request.status);
}

const counted = async (event: 'revoked' | 'evicted') => {
  const scrapes = await Promise.all([0, 1].map((index) => scrape(gateway(index).url, `Bearer ${OPS_TOKEN}`)));
  return scrapes.reduce((sum, scraped) => sum + scraped.sum('statement_gateway_sessions_total', { event }), 0);
};

describe('ending sessions on two replicas', () => {
  it('ends one browser\'s session from another: refused on both replicas within SESSION_CACHE_TTL + 1 s, signed out upstream once', async () => {
    const email = await newUser();
    const [laptop, phone, tablet] = [await browserOf(email, 'Laptop/1.0', 0), await browserOf(email, 'Phone/2.0', 1), await browserOf(email, 'Tablet/3.0', 0)];
    const listed = (await laptop.graphql<{ sessions: Listed[] }>(SESSIONS)).body.data?.sessions ?? [];
    expect(listed.map((session) => [session.userAgent, session.current])).toEqual([['Laptop/1.0', true], ['Tablet/3.0', false], ['Phone/2.0', false]]);
    const phoneId = listed.find((session) => session.userAgent === 'Phone/2.0')?.id ?? '';
    // The same list from the other replica: the same ids.
    expect(((await on(laptop, 1).graphql<{ sessions: Listed[] }>(SESSIONS)).body.data?.sessions ?? []).map((session) => session.id).sort()).toEqual(listed.map((session) => session.id).sort());

    await rememberedOnBoth(phone);
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const revokedBefore = await counted('revoked');
    const endedAt = Date.now();
    expect((await laptop.graphql('mutation($id: ID!) { endSession(id: $id) }', { id: phoneId })).body.data).toEqual({ endSession: true });
    const answeredAfter = Date.now() - endedAt;
    const latencies = await refusedOnBoth(phone, endedAt);
    console.log(`endSession: answered after ${answeredAfter} ms; refused on the replicas after ${latencies.join(' ms and ')} ms`);
    for (const latency of latencies) expect(latency).toBeLessThan(CACHE_TTL_MS + 1_000);

    expect(await signOuts(email)).toEqual([200]);
    expect(await counted('revoked')).toBe(revokedBefore + 1);
    for (const browser of [laptop, tablet, on(tablet, 1)]) expect((await browser.graphql(GREETING)).codes).toEqual([]);
    // Ended already: false, and nothing else ends.
    expect((await laptop.graphql('mutation($id: ID!) { endSession(id: $id) }', { id: phoneId })).body.data).toEqual({ endSession: false });
    expect(((await tablet.graphql<{ sessions: Listed[] }>(SESSIONS)).body.data?.sessions ?? []).map((session) => session.userAgent)).toEqual(['Tablet/3.0', 'Laptop/1.0']);
  });

  it('ends every session of the user on the operators\' revoke, each signed out upstream with its own credential', async () => {
    const email = await newUser();
    const other = await browserOf(await newUser(), 'Other/1.0', 1);
    const browsers = [await browserOf(email, 'A/1', 0), await browserOf(email, 'B/1', 1), await browserOf(email, 'C/1', 0)];
    await rememberedOnBoth(browsers[1]!);
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const revokedBefore = await counted('revoked');
    const startedAt = Date.now();
    const answer = await fetch(`${gateway(1).url}/ops/sessions/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ environment: 'sandbox', uid: email, reason: 'e2e: account taken over' }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ended: 3 });
    const latencies = (await Promise.all(browsers.map((browser) => refusedOnBoth(browser, startedAt)))).flat();
    console.log(`revoke: the user's 3 sessions refused on both replicas after at most ${Math.max(...latencies)} ms (answer included)`);
    for (const latency of latencies) expect(latency).toBeLessThan(CACHE_TTL_MS + 1_000);
    // Three sign-outs, each accepted: a credential signed out twice would answer 404 the second time.
    expect(await signOuts(email)).toEqual([200, 200, 200]);
    expect(await counted('revoked')).toBe(revokedBefore + 3);
    expect((await other.graphql(GREETING)).codes).toEqual([]);
    // The user logs in again (after the password change upstream): a new session works.
    expect((await (await browserOf(email, 'A/2', 1)).graphql(GREETING)).codes).toEqual([]);
  });

  it('ends the least recently used session when a login goes past SESSION_MAX_PER_USER', async () => {
    const email = await newUser();
    const first = await browserOf(email, 'First/1', 0);
    await sleep(5);
    const second = await browserOf(email, 'Second/1', 1);
    await sleep(5);
    const third = await browserOf(email, 'Third/1', 0);
    // Both replicas remember the second session; then the others are used, after its last use.
    await rememberedOnBoth(second);
    await sleep(5);
    for (const browser of [first, third]) expect((await browser.graphql(GREETING)).codes).toEqual([]);
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const evictedBefore = await counted('evicted');
    const fourthAt = Date.now();
    const fourth = await browserOf(email, 'Fourth/1', 1);
    const latencies = await refusedOnBoth(second, fourthAt);
    for (const latency of latencies) expect(latency).toBeLessThan(CACHE_TTL_MS + 1_000);
    for (const browser of [first, third, fourth]) expect((await browser.graphql(GREETING)).codes).toEqual([]);
    await expect.poll(() => signOuts(email)).toEqual([200]);
    await expect.poll(() => counted('evicted')).toBe(evictedBefore + 1);
    const left = (await fourth.graphql<{ sessions: Listed[] }>(SESSIONS)).body.data?.sessions ?? [];
    expect(left[0]).toMatchObject({ userAgent: 'Fourth/1', current: true });
    expect(left.map((session) => session.userAgent).sort()).toEqual(['First/1', 'Fourth/1', 'Third/1']);
  });

  it('keeps a session made before the per-user index working on both replicas, lists it as the current one, and ends it at logout', async () => {
    const email = await newUser();
    // As an earlier gateway stored it: a cookie of the id alone, `sgw:session:<hash>`, no index entry.
    const id = randomBytes(32).toString('base64url');
    const key = sessionKey(id);
    const credential = await signIn(sandbox.url, email, PASSWORD);
    const now = Date.now();
    const sealed = createCredentialCipher(Buffer.from(TEST_CREDENTIAL_KEY, 'base64')).seal(
      { accessToken: credential['access-token'], client: credential.client, uid: email },
      { record: key, environment: 'sandbox', uid: email, absoluteExpiresAt: now + 3_600_000 },
    );
    await createRedisSessionStore(redis).create(key, { uid: email, environment: 'sandbox', credential: sealed, createdAt: now, absoluteExpiresAt: now + 3_600_000 }, 600_000);
    const legacy = new Browser(gateway(0).url);
    legacy.cookie = `__Host-sgw_session=${id}`;
    for (const index of [0, 1]) expect((await on(legacy, index).graphql(GREETING)).codes).toEqual([]);
    expect((await legacy.graphql<{ sessions: Listed[] }>(SESSIONS)).body.data?.sessions.map((session) => [session.userAgent, session.current])).toEqual([[null, true]]);
    const cookie = legacy.cookie;
    expect((await legacy.graphql('mutation { logout }')).body.data).toEqual({ logout: true });
    expect(await redis.exists(key)).toBe(0);
    const replayed = new Browser(gateway(1).url);
    replayed.cookie = cookie;
    expect((await replayed.graphql(GREETING)).codes).toEqual(['UNAUTHENTICATED']);
  });
});
