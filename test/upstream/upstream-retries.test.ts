/**
 * Retries of upstream calls that are safe to repeat (src/upstream/resilience.ts), against the
 * emulator's counted faults: a query is sent again after a 503 or a lost answer, a mutation never.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGatewayOnEmulators } from '../support/gateway';
import { scrape } from '../support/metrics';

const { sandbox, production, gateway } = useGatewayOnEmulators();

const GREETING = '{ secretGreeting { response } }';
const ADD = 'mutation { addFw2Statements(statements: [{ uploaderId: "once" }]) { errors } }';
const READ = '{ getFw2Statements { statements { nodes { uploaderId } } } }';

interface Logged { readonly path: string; readonly operations: readonly string[]; readonly status: number; readonly fault?: string }
const upstreamLog = async () => (await control<Logged[]>(sandbox.url, 'GET', '/__emulator/requests')).body.map(({ operations, status, fault }) => ({ operations, status, ...(fault ? { fault } : {}) }));

let browser: Browser;
beforeEach(async () => {
  browser = new Browser(gateway.current.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  await control(sandbox.url, 'DELETE', '/__emulator/requests');
});

/** A gateway of the test's own with `extra` settings, and a browser signed in on it. */
async function withOwnGateway(extra: Record<string, string>, test: (client: Browser) => Promise<void>): Promise<void> {
  const own = await startTestGateway({
    UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY, ...extra,
  });
  try {
    const client = new Browser(own.url);
    expect((await client.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    await test(client);
  } finally {
    await own.stop();
  }
}

describe('upstream retries', () => {
  it('answers a query that the upstream refused once with 503, by asking again', async () => {
    const before = (await scrape(gateway.current.url)).sum('statement_gateway_upstream_retries_total', { environment: 'sandbox', outcome: 'ok' });
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failNextCount: 1 });
    const answer = await browser.graphql(GREETING);
    expect(answer.codes).toEqual([]);
    expect(answer.body.data?.secretGreeting.response).toBeTruthy();
    expect(await upstreamLog()).toEqual([
      { operations: ['secretGreeting'], status: 503, fault: 'failNext' },
      { operations: ['secretGreeting'], status: 200 },
    ]);
    expect((await scrape(gateway.current.url)).sum('statement_gateway_upstream_retries_total', { environment: 'sandbox', outcome: 'ok' })).toBe(before + 1);
  });

  it('answers a query whose answer was lost, by asking again', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { dropNextResponses: 1 });
    expect((await browser.graphql(GREETING)).codes).toEqual([]);
    expect(await upstreamLog()).toEqual([
      { operations: ['secretGreeting'], status: 200, fault: 'dropped' },
      { operations: ['secretGreeting'], status: 200 },
    ]);
  });

  it('retries a query at most UPSTREAM_RETRIES times', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failNextCount: 2 });
    expect((await browser.graphql(GREETING)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect((await upstreamLog()).map((entry) => entry.status)).toEqual([503, 503]);
  });

  it('does not retry a query after a 500 (the upstream may have run it)', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failNextCount: 1, failNextStatus: 500 });
    expect((await browser.graphql(GREETING)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    // The GraphQL call once; then (a 500 is judged as a timeout is) the circuit's probe, a GET that runs no operation.
    await expect.poll(async () => (await upstreamLog()).filter((entry) => entry.operations.length === 0).map((entry) => entry.status)).toEqual([404]);
    expect((await upstreamLog()).filter((entry) => entry.operations.length > 0).map((entry) => entry.status)).toEqual([500]);
  });

  it('never retries a mutation refused with 503', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failNextCount: 1 });
    expect((await browser.graphql(ADD)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect(await upstreamLog()).toEqual([{ operations: ['addFw2Statements'], status: 503, fault: 'failNext' }]);
  });

  it('never retries a mutation whose answer was lost, so it is applied once', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { dropNextResponses: 1 });
    expect((await browser.graphql(ADD)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    expect((await browser.graphql(READ)).body.data?.getFw2Statements.statements.nodes).toEqual([{ uploaderId: 'once' }]);
    expect((await upstreamLog()).filter((entry) => entry.operations.includes('addFw2Statements'))).toHaveLength(1);
  });

  it('answers a login whose upstream sign-in was refused once with 503, by signing in again', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failNextCount: 1 });
    expect((await new Browser(gateway.current.url).login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  });

  it('retries a query on Mesh\'s execution path too (FAST_PATH=false)', async () => {
    await withOwnGateway({ FAST_PATH: 'false' }, async (client) => {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { failNextCount: 1 });
      expect((await client.graphql(GREETING)).codes).toEqual([]);
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { failNextCount: 1 });
      expect((await client.graphql(ADD)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    });
  });

  it('never retries when UPSTREAM_RETRIES is 0', async () => {
    await withOwnGateway({ UPSTREAM_RETRIES: '0' }, async (client) => {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { failNextCount: 1 });
      expect((await client.graphql(GREETING)).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    });
  });
});
