/**
 * Upstream failures reach the client as the contract's codes, never with the upstream's URL,
 * connection error or body; readiness stays 200 and names the failing dependency down.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { control, DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGateway } from '../support/gateway';

const sandbox = useEmulator('sandbox');
let production: RunningEmulator | undefined;
const gateway = useGateway(() => ({
  UPSTREAM_SANDBOX_URL: sandbox.url,
  UPSTREAM_PRODUCTION_URL: production?.url,
  REDIS_URL: TEST_REDIS_URL,
  CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
  UPSTREAM_TIMEOUT_MS: '800',
}));

beforeAll(async () => {
  production = await startEmulator({ environment: 'production' });
  await gateway.start();
});
afterAll(async () => {
  await production?.close().catch(() => undefined);
});

const GREETING = '{ secretGreeting { response } }';
let browser: Browser;
beforeEach(async () => {
  browser = new Browser(gateway.current.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
});

/**
 * /readiness once it shows `dependencies` (states are found in the background, about once a second
 * from the first /readiness on, so a change shows a moment later): its status and text.
 */
async function readinessShowing(dependencies: Record<string, string>): Promise<{ status: number; text: string }> {
  const readiness = async () => {
    const response = await fetch(`${gateway.current.url}/readiness`);
    return { status: response.status, text: await response.text() };
  };
  await expect.poll(async () => (JSON.parse((await readiness()).text) as { dependencies: unknown }).dependencies).toMatchObject(dependencies);
  return readiness();
}

function expectNoLeak(text: string): void {
  expect(text).not.toMatch(/127\.0\.0\.1|localhost|https?:\/\//);
  expect(text).not.toMatch(/ECONNREFUSED|fetch failed|<html|<!DOCTYPE|stack|\.ts:\d+/i);
}

describe('upstream failures', () => {
  it('gives UPSTREAM_UNAVAILABLE when the upstream answers 500, without its body', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 500 });
    const answer = await browser.graphql(GREETING);
    expect(answer.status).toBe(503);
    expect(answer.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expectNoLeak(JSON.stringify(answer.body));
  });

  it('gives UPSTREAM_UNAVAILABLE with a Retry-After header and extensions.retryAfterSeconds', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    const answer = await browser.graphql(GREETING);
    expect(answer.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answer.body.errors?.[0]?.extensions?.retryAfterSeconds).toBe(Number(answer.headers.get('retry-after')));
  });

  it('gives UPSTREAM_UNAVAILABLE when the upstream hangs past UPSTREAM_TIMEOUT_MS', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { hangMs: 5_000 });
    const started = Date.now();
    const answer = await browser.graphql(GREETING);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(answer.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expectNoLeak(JSON.stringify(answer.body));
  });

  it('gives UPSTREAM_ERROR when the upstream answers something unexpected', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 418 });
    const answer = await browser.graphql(GREETING);
    expect(answer.status).toBe(502);
    expect(answer.codes).toEqual(['UPSTREAM_ERROR']);
    expectNoLeak(JSON.stringify(answer.body));
  });

  it('gives UPSTREAM_UNAVAILABLE to login when the upstream is down', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    const answer = await new Browser(gateway.current.url).login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    expect(answer.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    // The error is the login's: nothing names the hidden sign-in operation.
    expect(answer.body.errors?.[0]?.path).toEqual(['login']);
    expect(JSON.stringify(answer.body)).not.toContain('signIn');
    expectNoLeak(JSON.stringify(answer.body));
  });

  it('works again once the upstream recovers', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 500 });
    expect((await browser.graphql(GREETING)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null });
    expect((await browser.graphql(GREETING)).codes).toEqual([]);
  });
});

describe('readiness', () => {
  it('is 200 ready when the stores and both upstreams answer', async () => {
    const ready = { sessionStore: 'up', cacheStore: 'up', upstreamSandbox: 'up', upstreamProduction: 'up' };
    const { status, text } = await readinessShowing(ready);
    expect(status).toBe(200);
    expect(JSON.parse(text)).toEqual({ status: 'ready', dependencies: ready });
    expect((await fetch(`${gateway.current.url}/healthcheck`)).status).toBe(200);
  });

  it('stays 200, degraded, naming the upstream that fails down, without its URL', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 500 });
    const { status, text } = await readinessShowing({ upstreamSandbox: 'down', upstreamProduction: 'up' });
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ status: 'degraded', dependencies: { upstreamSandbox: 'down', upstreamProduction: 'up' } });
    expectNoLeak(text);
  });
});

describe('an upstream that is gone', () => {
  it('gives UPSTREAM_UNAVAILABLE when the connection is refused, without the address', async () => {
    const prod = new Browser(gateway.current.url);
    expect((await prod.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password, 'PRODUCTION')).codes).toEqual([]);
    await production?.close();
    const answer = await prod.graphql(GREETING);
    expect(answer.status).toBe(503);
    expect(answer.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expectNoLeak(JSON.stringify(answer.body));
    // The gateway itself stays up.
    expect((await browser.graphql(GREETING)).codes).toEqual([]);
    const { status, text } = await readinessShowing({ upstreamProduction: 'down' });
    expect([status, JSON.parse(text)]).toMatchObject([200, { status: 'degraded', dependencies: { upstreamProduction: 'down' } }]);
  });
});
