/**
 * Who may read `/metrics` (login failures, rate limits, service-account names): with OPS_TOKEN,
 * only requests with it (Bearer, as Prometheus sends it, or Basic, as /ops/ takes it); without
 * it, loopback clients only, and never a request that came through a proxy.
 */
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator';
import { startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';

const TOKEN = 'metrics-token-for-the-test-0123456789';
const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
let guarded: TestGateway | undefined;
let open: TestGateway | undefined;

beforeAll(async () => {
  const env = { UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY };
  [guarded, open] = await Promise.all([startTestGateway({ ...env, OPS_TOKEN: TOKEN }), startTestGateway({ ...env, HOST: '0.0.0.0' })]);
});
afterAll(async () => {
  await Promise.all([guarded?.stop(), open?.stop()]);
});

const basic = (password: string) => `Basic ${Buffer.from(`prometheus:${password}`).toString('base64')}`;

describe('/metrics with OPS_TOKEN', () => {
  it('refuses a request without the token with 401 and a JSON error, and one with a wrong token', async () => {
    const none = await fetch(`${guarded!.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    const text = await none.text();
    expect(text).not.toContain('statement_gateway_');
    expect((JSON.parse(text) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect((await fetch(`${guarded!.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await fetch(`${guarded!.url}/metrics`, { headers: { authorization: basic('wrong') } })).status).toBe(401);
  });

  it('answers with the Bearer token (as Prometheus sends it) and with Basic (as /ops/ takes it)', async () => {
    for (const authorization of [`Bearer ${TOKEN}`, basic(TOKEN)]) {
      const answer = await fetch(`${guarded!.url}/metrics`, { headers: { authorization } });
      expect(answer.status, authorization.split(' ')[0]).toBe(200);
      expect(await answer.text()).toContain('statement_gateway_');
    }
  });
});

describe('/metrics without OPS_TOKEN', () => {
  it('answers loopback clients, and 404 to any other address and to requests through a proxy', async () => {
    const port = new URL(open!.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    const external = Object.values(networkInterfaces()).flat().find((entry) => entry && entry.family === 'IPv4' && !entry.internal);
    expect(external, 'this test needs a non-loopback IPv4 interface').toBeDefined();
    const remote = await fetch(`http://${external!.address}:${port}/metrics`, { headers: { 'x-forwarded-for': '127.0.0.1' } });
    expect(remote.status).toBe(404);
    expect(await remote.text()).not.toContain('statement_gateway_');
    // Through a proxy on this host (loopback socket, X-Forwarded-For set): not loopback either.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(404);
  });
});
