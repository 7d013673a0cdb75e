/**
 * Sessions fail closed when their Redis is away (paused or stopped), fast, and the gateway
 * recovers without a restart when it returns. The Redis here is the test's own.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT, signInRaw } from '../support/emulator';
import { Browser, useGatewayOnOwnRedis } from '../support/gateway';
import { timed } from '../support/timing';

const setup = useGatewayOnOwnRedis();
const { gateway } = setup;

const GREETING = '{ secretGreeting { response } }';

describe('when the session store is away', () => {
  it('answers SESSION_STORE_UNAVAILABLE within a second or two while Redis hangs, and the same session works once it answers again', async () => {
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    setup.redis.pause();
    try {
      const { value, ms } = await timed(() => browser.graphql(GREETING));
      expect(value.status).toBe(503);
      expect(value.codes).toEqual(['SESSION_STORE_UNAVAILABLE']);
      expect(ms).toBeLessThan(2_000);
      expect(JSON.stringify(value.body)).not.toMatch(/redis|ECONN|timeout|127\.0\.0\.1/i);
    } finally {
      setup.redis.resume();
    }
    expect((await browser.graphql(GREETING)).codes).toEqual([]);
  });

  it('fails closed for cookie requests, login and the front sign-in while Redis is stopped, and recovers without a restart', async () => {
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    await setup.redis.stop();

    const { value, ms } = await timed(() => browser.graphql(GREETING));
    expect(value.codes).toEqual(['SESSION_STORE_UNAVAILABLE']);
    expect(ms).toBeLessThan(2_000);
    const login = await new Browser(gateway.current.url).login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    expect(login.codes).toEqual(['SESSION_STORE_UNAVAILABLE']);
    expect(login.headers.getSetCookie()).toEqual([]);
    // The login limits fail closed on the drop-in front's sign-in too, in devise's shape.
    const signIn = await signInRaw(gateway.current.url, DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    expect(signIn.status).toBe(503);
    expect(signIn.headers.get('access-token')).toBeNull();
    expect(signIn.body).toEqual({ success: false, errors: [expect.any(String)] });
    // Still ready for traffic (every replica shares the store), saying which dependency is down
    // once the background checks (about once a second from the first /readiness on) have seen it.
    const readiness = async () => {
      const response = await fetch(`${gateway.current.url}/readiness`);
      return { status: response.status, body: (await response.json()) as unknown };
    };
    await expect.poll(readiness).toMatchObject({ status: 200, body: { status: 'degraded', dependencies: { sessionStore: 'down', upstreamSandbox: 'up' } } });

    await setup.redis.start();
    // The client reconnects in the background (at most a second apart).
    const deadline = Date.now() + 5_000;
    let again = await new Browser(gateway.current.url).login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    while (again.codes.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      again = await new Browser(gateway.current.url).login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    }
    expect(again.codes).toEqual([]);
    const readinessStatus = async () => ((await (await fetch(`${gateway.current.url}/readiness`)).json()) as { status: string }).status;
    let ready = await readinessStatus();
    while (ready !== 'ready' && Date.now() < deadline + 2_000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      ready = await readinessStatus();
    }
    expect(ready).toBe('ready');
  });

  it('logs the outage once, not once per reconnection attempt', () => {
    const lines = gateway.current.output().split('\n');
    const outages = lines.filter((line) => line.includes('"event":"store.unavailable"') && line.includes('"store":"sessions"'));
    const recoveries = lines.filter((line) => line.includes('"event":"store.recovered"') && line.includes('"store":"sessions"'));
    // Two outages above (paused, then stopped), each with many failed requests and reconnections.
    expect(outages.length).toBe(2);
    expect(recoveries.length).toBe(2);
  });
});
