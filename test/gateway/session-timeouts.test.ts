/** Idle and absolute session timeouts, enforced by the gateway whatever the cookie says. */
import { describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT } from '../support/emulator';
import { Browser, useGatewayOnEmulators } from '../support/gateway';

const { gateway } = useGatewayOnEmulators({ SESSION_IDLE_TIMEOUT: '1200ms', SESSION_ABSOLUTE_TIMEOUT: '3s' });

const GREETING = '{ secretGreeting { response } }';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function signedIn(): Promise<Browser> {
  const browser = new Browser(gateway.current.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  return browser;
}

describe('session timeouts', () => {
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
});

describe('Session.idleExpiresAt', () => {
  const IDLE = '{ session { idleExpiresAt expiresAt } }';
  const idleEnd = async (browser: Browser) => Date.parse((await browser.graphql<{ session: { idleExpiresAt: string } }>(IDLE)).body.data?.session.idleExpiresAt ?? '');

  it('is the idle timeout from the last request, moved on by asking session, and the session ends then', async () => {
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

  it('never passes the absolute end', async () => {
    const browser = await signedIn();
    await sleep(2_200);
    const answer = await browser.graphql<{ session: { idleExpiresAt: string; expiresAt: string } }>(IDLE);
    const session = answer.body.data?.session;
    expect(Date.parse(session?.idleExpiresAt ?? '')).toBe(Date.parse(session?.expiresAt ?? ''));
  });
});
