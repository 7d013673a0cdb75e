/** Idle and absolute session timeouts, enforced by the gateway whatever the cookie says. */
import { describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT } from '../support/emulator';
import { Browser, useGatewayOnEmulators } from '../support/gateway';

// The tests run at once, siblings in one suite (vitest runs sibling suites one after another):
// each mostly waits on a session of its own, about 14 s in a row. No emulator reset between them,
// which would end the others' upstream credentials; each signs the demo account in once, under
// devise's ten clients per account.
const { gateway } = useGatewayOnEmulators({ SESSION_IDLE_TIMEOUT: '1200ms', SESSION_ABSOLUTE_TIMEOUT: '3s' }, { resetBeforeEach: false });

const GREETING = '{ secretGreeting { response } }';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const IDLE = '{ session { idleExpiresAt expiresAt } }';
const idleEnd = async (browser: Browser) => Date.parse((await browser.graphql<{ session: { idleExpiresAt: string } }>(IDLE)).body.data?.session.idleExpiresAt ?? '');
const PEEK = '{ session(touch: false) { idleExpiresAt idleExpiresInSeconds } }';
type Peeked = { session: { idleExpiresAt: string; idleExpiresInSeconds: number } | null };

async function signedIn(): Promise<Browser> {
  const browser = new Browser(gateway.current.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  return browser;
}

describe.concurrent('session timeouts', () => {
  it('ends a session left idle longer than SESSION_IDLE_TIMEOUT', async () => {
    const browser = await signedIn();
    await sleep(1_600);
    const answer = await browser.graphql(GREETING);
    expect(answer.status).toBe(401);
    expect(answer.codes).toEqual(['UNAUTHENTICATED']);
  });

  it('keeps an active session past the idle timeout, then ends it at SESSION_ABSOLUTE_TIMEOUT', async () => {
    const browser = await signedIn();
    const started = Date.now();
    while (Date.now() - started < 2_400) {
      expect((await browser.graphql(GREETING)).codes).toEqual([]);
      await sleep(400);
    }
    await sleep(Math.max(0, 3_200 - (Date.now() - started)));
    const answer = await browser.graphql(GREETING);
    expect(answer.codes).toEqual(['UNAUTHENTICATED']);
  });

  it('reports the absolute end as expiresAt', async () => {
    const before = Date.now();
    const browser = await signedIn();
    const session = await browser.graphql<{ session: { expiresAt: string } }>('{ session { expiresAt } }');
    const end = Date.parse(session.body.data?.session.expiresAt ?? '');
    expect(end).toBeGreaterThanOrEqual(before + 2_900);
    expect(end).toBeLessThanOrEqual(Date.now() + 3_100);
  });


  it('Session.idleExpiresAt is the idle timeout from the last request, moved on by asking session, and the session ends then', async () => {
    const before = Date.now();
    const browser = new Browser(gateway.current.url);
    const login = await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    expect(login.codes).toEqual([]);
    const atLogin = Date.parse(login.body.data?.login.idleExpiresAt ?? '');
    expect(atLogin).toBeGreaterThanOrEqual(before + 1_200);
    expect(atLogin).toBeLessThanOrEqual(Date.now() + 1_200);

    await sleep(700);
    const asked = Date.now();
    const moved = await idleEnd(browser);
    // Asking counted as activity: the end moved on by about the time waited.
    expect(moved).toBeGreaterThanOrEqual(atLogin + 600);
    expect(moved).toBeLessThanOrEqual(Date.now() + 1_200);
    expect(moved).toBeGreaterThanOrEqual(asked + 1_100);

    // Without a request past it, the session is over.
    await sleep(Math.max(0, moved - Date.now()) + 300);
    expect((await browser.graphql(GREETING)).codes).toEqual(['UNAUTHENTICATED']);
  });

  it('Session.idleExpiresAt never passes the absolute end', async () => {
    const browser = await signedIn();
    await sleep(2_200);
    const answer = await browser.graphql<{ session: { idleExpiresAt: string; expiresAt: string } }>(IDLE);
    const session = answer.body.data?.session;
    expect(Date.parse(session?.idleExpiresAt ?? '')).toBe(Date.parse(session?.expiresAt ?? ''));
  });


  it('session(touch: false) reads the time left without moving the idle timeout on, and the session still ends on time', async () => {
    const browser = new Browser(gateway.current.url);
    const login = await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    const atLogin = Date.parse(login.body.data?.login.idleExpiresAt ?? '');
    await sleep(500);
    const peeked = await browser.graphql<Peeked>(PEEK);
    expect(peeked.codes).toEqual([]);
    expect(Math.abs(Date.parse(peeked.body.data?.session?.idleExpiresAt ?? '') - atLogin)).toBeLessThan(100);
    expect(peeked.body.data?.session?.idleExpiresInSeconds).toBe(0);
    await sleep(400);
    expect((await browser.graphql<Peeked>(PEEK)).body.data?.session).not.toBeNull();
    // 1.5 s after login, with only touch-free reads since: over.
    await sleep(Math.max(0, atLogin + 300 - Date.now()));
    expect((await browser.graphql<Peeked>(PEEK)).body.data?.session).toBeNull();
    expect((await browser.graphql(GREETING)).codes).toEqual(['UNAUTHENTICATED']);
  });

  it('session(touch: false) lets an idle page whose clock runs 5 s ahead sign out on time, counting down from idleExpiresInSeconds', async () => {
    const pageClock = () => Date.now() + 5_000;
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    expect((await browser.graphql(GREETING)).codes).toEqual([]);
    const lastActivity = Date.now();
    // The example page's countdown: from the relative time left, re-read with touch: false at zero.
    const first = await browser.graphql<Peeked>(PEEK);
    let deadline = pageClock() + (first.body.data?.session?.idleExpiresInSeconds ?? 0) * 1000;
    let signedOutAt: number | undefined;
    while (signedOutAt === undefined && Date.now() - lastActivity < 5_000) {
      await sleep(Math.max(50, deadline - pageClock()));
      const checked = await browser.graphql<Peeked>(PEEK);
      if (checked.body.data?.session === null) signedOutAt = Date.now();
      else deadline = pageClock() + Math.max(0.25, checked.body.data?.session?.idleExpiresInSeconds ?? 0) * 1000;
    }
    expect(signedOutAt).toBeDefined();
    expect((signedOutAt ?? 0) - lastActivity).toBeGreaterThanOrEqual(1_200);
    expect((signedOutAt ?? 0) - lastActivity).toBeLessThan(1_200 + 600);
  });

  it('session(touch: false) still counts a request that asks session beside another field as activity', async () => {
    const browser = await signedIn();
    await sleep(700);
    const mixed = await browser.graphql<{ session: { idleExpiresAt: string } }>('{ session(touch: false) { idleExpiresAt } secretGreeting { response } }');
    expect(mixed.codes).toEqual([]);
    await sleep(700);
    expect((await browser.graphql(GREETING)).codes).toEqual([]);
  });
});
