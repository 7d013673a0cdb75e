/**
 * A user's sessions listed and ended (src/session/user-sessions.ts), in process over both session
 * stores, with the gateway's own sign-out (Mesh's hidden REST source) against the real emulator:
 * every session ended is signed out upstream with its own credential (which the upstream then
 * refuses) and counted once; ids open nothing and end nothing of another user's.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../../src/credentials/cipher';
import { createDerivedKeys } from '../../src/derived-keys';
import { createMetrics } from '../../src/observability/metrics';
import { createStoreHealth } from '../../src/observability/store-health';
import { createMemorySessionStore } from '../../src/session/memory-session-store';
import { createRedisSessionStore } from '../../src/session/redis-session-store';
import type { IndexedSessionStore } from '../../src/session/session-index';
import { Sessions, sessionKey, type ActiveSession } from '../../src/session/sessions';
import { UserSessions } from '../../src/session/user-sessions';
import type { UpstreamCredential } from '../../src/upstream/credential';
import { createUpstreamFetch } from '../../src/upstream/fetch';
import { upstreamTarget } from '../../src/upstream/target';
import { capturedLog } from '../support/captured-log';
import { graphql, newAccount, signIn, useEmulator, type Credential } from '../support/emulator';
import { TEST_REDIS_URL } from '../support/gateway';
import { parseMetrics } from '../support/metrics';
import { specUpstreamAuth } from '../support/mesh-auth';

const sandbox = useEmulator('sandbox');
const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.quit());
const PASSWORD = 'a-long-enough-password-123';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const upstreamCredential = (credential: Credential): UpstreamCredential => ({ accessToken: credential['access-token'], client: credential.client, uid: credential.uid });
const accepted = async (credential: Credential) => (await graphql(sandbox.url, credential, '{ secretGreeting { response } }')).status === 200;

function setUp(store: IndexedSessionStore, maxPerUser = 10) {
  const captured = capturedLog();
  const { log } = captured;
  const metrics = createMetrics({ processMetrics: false });
  const upstreams = { sandbox: upstreamTarget('sandbox', sandbox.url), production: upstreamTarget('production', sandbox.url) };
  const cipher = createCredentialCipher(randomBytes(32));
  const sessions = new Sessions({ store, cipher, keys: createDerivedKeys(randomBytes(32)), idleMs: 60_000, absoluteMs: 3_600_000, maxPerUser });
  const auth = specUpstreamAuth(createUpstreamFetch({ timeoutMs: 2_000, log, metrics }));
  const users = new UserSessions({ sessions, auth, upstreams, metrics, log, health: createStoreHealth('sessions', log) });
  /** A new upstream sign-in of `email` made into a browser session. */
  const login = async (email: string, userAgent?: string) => {
    const credential = await signIn(sandbox.url, email, PASSWORD);
    const created = await sessions.create('sandbox', upstreamCredential(credential), { userAgent });
    return { ...created, credential };
  };
  const ended = async (event: 'revoked' | 'evicted') => parseMetrics(await metrics.registry.metrics()).sum('statement_gateway_sessions_total', { event });
  return { sessions, cipher, users, login, ended, events: (name: string) => captured.events(name) };
}

const stores = [
  { name: 'memory', open: () => createMemorySessionStore() },
  { name: 'redis', open: () => createRedisSessionStore(redis) },
] as const;

for (const { name, open } of stores) describe(`a user's sessions over the ${name} store`, () => {
  const newUser = async () => {
    const email = `sessions-${randomUUID()}@example.com`;
    await newAccount(sandbox.url, email);
    return email;
  };

  it('lists the user\'s live sessions, the current one first, with opaque ids that are neither cookie nor store key', async () => {
    const { users, login } = setUp(open());
    const email = await newUser();
    const first = await login(email, 'Firefox/140');
    const second = await login(email, `Chromium/${'x'.repeat(300)}`);
    const listed = await users.list(second.session);
    expect(listed.map((session) => session.current)).toEqual([true, false]);
    expect(listed[0]?.userAgent).toBe(`Chromium/${'x'.repeat(300)}`.slice(0, 200));
    expect(listed[1]).toMatchObject({ userAgent: 'Firefox/140', createdAt: first.session.createdAt });
    for (const { id } of listed) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
      for (const secret of [first.id, second.id, first.session.key, second.session.key, ...first.id.split('.'), ...second.id.split('.')]) expect(id).not.toContain(secret);
    }
  });

  it('ends one session by its id: signed out upstream with its own credential, counted once, refused after', async () => {
    const { sessions, users, login, ended } = setUp(open());
    const email = await newUser();
    const [kept, lost] = [await login(email), await login(email)];
    const id = (await users.list(kept.session)).find((session) => !session.current)?.id ?? '';
    expect(await users.endOne(kept.session, id)).toEqual({ ended: true, current: false });
    expect(await users.endOne(kept.session, id)).toEqual({ ended: false, current: false });
    expect((await sessions.resolve(lost.id)).status).toBe('missing');
    expect((await sessions.resolve(kept.id)).status).toBe('active');
    expect(await accepted(lost.credential)).toBe(false);
    expect(await accepted(kept.credential)).toBe(true);
    expect(await ended('revoked')).toBe(1);
  });

  it('ends nothing of another user\'s with their id, and never lists their sessions', async () => {
    const { users, login } = setUp(open());
    const [alice, bob] = [await login(await newUser()), await login(await newUser())];
    const [aliceId] = (await users.list(alice.session)).map((session) => session.id);
    expect(await users.endOne(bob.session, aliceId ?? '')).toEqual({ ended: false, current: false });
    expect((await users.list(bob.session)).map((session) => session.id)).not.toContain(aliceId);
    expect(await users.list(alice.session)).toHaveLength(1);
    expect(await accepted(alice.credential)).toBe(true);
  });

  it('logs out everywhere, or everywhere else with keepCurrent, each session signed out upstream', async () => {
    const { sessions, users, login, ended } = setUp(open());
    const email = await newUser();
    const [a, b, c] = [await login(email), await login(email), await login(email)];
    expect(await users.endAll(c.session, true)).toEqual({ ended: 2, current: false });
    expect([(await sessions.resolve(a.id)).status, (await sessions.resolve(b.id)).status, (await sessions.resolve(c.id)).status]).toEqual(['missing', 'missing', 'active']);
    expect([await accepted(a.credential), await accepted(b.credential), await accepted(c.credential)]).toEqual([false, false, true]);
    expect(await users.endAll(c.session, false)).toEqual({ ended: 1, current: true });
    expect(await accepted(c.credential)).toBe(false);
    expect(await ended('revoked')).toBe(3);
  });

  it('revokes every session of an upstream user for an operator, and only theirs', async () => {
    const { sessions, users, login, ended, events } = setUp(open());
    const [email, other] = [await newUser(), await newUser()];
    const mine = [await login(email), await login(email), await login(email)];
    const theirs = await login(other);
    expect(await users.revoke('sandbox', email)).toBe(3);
    for (const session of mine) expect((await sessions.resolve(session.id)).status).toBe('missing');
    for (const session of mine) expect(await accepted(session.credential)).toBe(false);
    expect((await sessions.resolve(theirs.id)).status).toBe('active');
    expect(await users.revoke('sandbox', email)).toBe(0);
    expect(await users.revoke('production', other)).toBe(0);
    expect(await ended('revoked')).toBe(3);
    expect(events('session.ended')).toEqual(Array.from({ length: 3 }, () => expect.objectContaining({ environment: 'sandbox', as: 'revoked', upstreamSignOut: 'ok' })));
  });

  it('ends the least recently used session beyond the cap at login, signed out upstream and counted as evicted', async () => {
    const { sessions, users, login, ended } = setUp(open(), 2);
    const email = await newUser();
    // A few milliseconds apart, so that "least recently used" is not a tie.
    const oldest = await login(email);
    await sleep(5);
    const used = await login(email);
    await sleep(5);
    // The older login is used since: the other one is now the least recently used.
    await sessions.resolve(oldest.id);
    await sleep(5);
    const third = await login(email);
    expect(third.beyondCap).toEqual([used.session.key]);
    await users.evict(third.beyondCap);
    expect((await sessions.resolve(used.id)).status).toBe('missing');
    expect((await sessions.resolve(oldest.id)).status).toBe('active');
    await expect.poll(() => accepted(used.credential)).toBe(false);
    await expect.poll(() => ended('evicted')).toBe(1);
  });

  it('lists a session made before indexes as the current one, and ends it with logoutEverywhere', async () => {
    const { sessions, cipher, users, login } = setUp(open());
    const email = await newUser();
    const indexed = await login(email);
    // As an earlier gateway made it: a cookie of the id alone, a key without a user, no entry.
    const id = randomBytes(32).toString('base64url');
    const credential = await signIn(sandbox.url, email, PASSWORD);
    const now = Date.now();
    const key = sessionKey(id);
    const sealed = cipher.seal(upstreamCredential(credential), { record: key, environment: 'sandbox', uid: email, absoluteExpiresAt: now + 3_600_000 });
    await sessions.store.create(key, { uid: email, environment: 'sandbox', credential: sealed, createdAt: now, absoluteExpiresAt: now + 3_600_000 }, 60_000);
    const resolved = await sessions.resolve(id);
    if (resolved.status !== 'active') throw new Error(resolved.status);
    const legacy: ActiveSession = resolved.session;
    expect((await users.list(legacy)).map((session) => session.current)).toEqual([true, false]);
    expect(await users.endAll(legacy, false)).toEqual({ ended: 2, current: true });
    expect((await sessions.resolve(id)).status).toBe('missing');
    expect((await sessions.resolve(indexed.id)).status).toBe('missing');
    expect(await accepted(credential)).toBe(false);
  });
});
