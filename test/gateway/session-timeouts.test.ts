/** Idle and absolute session timeouts, enforced by the gateway whatever the cookie says. */
import { describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT } from '../helpers/emulator';
import { Browser, useGatewayOnEmulators } from '../helpers/gateway';

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
