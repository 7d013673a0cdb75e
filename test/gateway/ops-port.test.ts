/**
 * OPS_PORT (src/gateway/ops-listener.ts): a second listener for /healthcheck, /readiness, /metrics
 * and /ops/, and nothing else; /metrics and /ops/ gone from PORT, the probes on both; the edge, the
 * body limit and the OPS_TOKEN rule on it as on PORT; its URL in the banner and the start line;
 * and the drain over both listeners. Gateways in this process, on the built-in emulator.
 */
import net, { type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/gateway';
import type { InProcessGateway } from '../support/in-process';
import { connectionRefused, rawRequest } from '../support/raw-http';

const TOKEN = 'ops-port-token-for-the-test-0123456789';
const bearer = { authorization: `Bearer ${TOKEN}` };
const basic = { authorization: `Basic ${Buffer.from(`operator:${TOKEN}`).toString('base64')}` };

const started: InProcessGateway[] = [];
async function gatewayWith(env: Record<string, string>): Promise<InProcessGateway> {
  const gateway = await startTestGateway(env);
  started.push(gateway);
  return gateway;
}
afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.stop()));
});

/** `gateway.opsUrl`, which a gateway started with OPS_PORT has. */
function opsUrlOf(gateway: InProcessGateway): string {
  expect(gateway.opsUrl, 'started with OPS_PORT').toBeDefined();
  return gateway.opsUrl ?? '';
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const answer = await fetch(url, { headers, redirect: 'manual' });
  return { status: answer.status, headers: answer.headers, text: await answer.text() };
}

const codeOf = (text: string) => (JSON.parse(text) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code;

const freePort = async () => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

describe('OPS_PORT', () => {
  let guarded: InProcessGateway;
  let open: InProcessGateway;
  beforeAll(async () => {
    [guarded, open] = await Promise.all([
      gatewayWith({ OPS_PORT: '0', OPS_TOKEN: TOKEN, MAX_BODY_BYTES: '1024' }),
      gatewayWith({ OPS_PORT: '0', HOST: '0.0.0.0' }),
    ]);
  });

  it('serves /healthcheck, /readiness, /metrics and /ops/ on a listener of its own', async () => {
    const ops = opsUrlOf(guarded);
    expect(new URL(ops).port).not.toBe(new URL(guarded.url).port);
    expect(await get(`${ops}/healthcheck`)).toMatchObject({ status: 200, text: JSON.stringify({ status: 'ok' }) });
    const readiness = await get(`${ops}/readiness`);
    expect(readiness.status).toBe(200);
    expect((JSON.parse(readiness.text) as { status: string }).status).toMatch(/^(ready|degraded)$/);
    const metrics = await get(`${ops}/metrics`, bearer);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('statement_gateway_');
    const page = await get(`${ops}/ops/`, basic);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect((await get(`${ops}/ops/data`, basic)).status).toBe(200);
    expect(await get(`${ops}/ops`, basic)).toMatchObject({ status: 308 });
  });

  it('answers 404 with a JSON error to every other path there: no GraphQL, no drop-in front, no PDF', async () => {
    const ops = opsUrlOf(guarded);
    for (const path of ['/graphql', '/v2/graphql', '/sandbox/v2/graphql', '/v2/auth/sign_in', '/statements/x/pdf', '/graphiql/', '/nothing', '/__yoga_health']) {
      const answer = await fetch(`${ops}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer }, body: '{"query":"{ __typename }"}' });
      expect(answer.status, path).toBe(404);
      expect(codeOf(await answer.text()), path).toBe('BAD_REQUEST');
    }
  });

  it('takes /metrics and /ops/ off PORT (404, even with the token), where the probes and /graphql still answer', async () => {
    for (const path of ['/metrics', '/ops/', '/ops', '/ops/data']) {
      const answer = await get(`${guarded.url}${path}`, path === '/metrics' ? bearer : basic);
      expect(answer.status, path).toBe(404);
      expect(answer.text, path).not.toContain('statement_gateway_');
    }
    expect((await get(`${guarded.url}/healthcheck`)).status).toBe(200);
    expect((await get(`${guarded.url}/readiness`)).status).toBe(200);
    const graphql = await fetch(`${guarded.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    expect(await graphql.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('keeps the OPS_TOKEN rule there: 401 without the token or with a wrong one', async () => {
    const ops = opsUrlOf(guarded);
    const metrics = await get(`${ops}/metrics`);
    expect([metrics.status, codeOf(metrics.text), metrics.headers.get('www-authenticate')]).toEqual([401, 'UNAUTHENTICATED', 'Bearer realm="statement-gateway metrics"']);
    expect((await get(`${ops}/metrics`, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    const page = await get(`${ops}/ops/`);
    expect([page.status, page.headers.get('www-authenticate')]).toEqual([401, 'Basic realm="statement-gateway ops", charset="UTF-8"']);
  });

  it('without OPS_TOKEN, answers loopback clients only there, never another address or a request through a proxy', async () => {
    const port = new URL(opsUrlOf(open)).port;
    expect((await get(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    expect((await get(`http://127.0.0.1:${port}/ops/`)).status).toBe(200);
    expect((await get(`http://127.0.0.1:${port}/metrics`, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(404);
    expect((await get(`http://127.0.0.1:${port}/ops/`, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(404);
    const external = Object.values(networkInterfaces()).flat().find((entry) => entry && entry.family === 'IPv4' && !entry.internal);
    expect(external, 'this test needs a non-loopback IPv4 interface').toBeDefined();
    expect((await get(`http://${external?.address}:${port}/metrics`)).status).toBe(404);
    // The probes answer everyone, as on PORT.
    expect((await get(`http://${external?.address}:${port}/healthcheck`)).status).toBe(200);
  });

  it('runs the edge first there: a target with dot segments or an empty segment, or a bad Host, is 400; every answer has the edge\'s headers', async () => {
    const ops = opsUrlOf(guarded);
    const host = `Host: ${new URL(ops).host}`;
    for (const target of ['/ops/../metrics', '/ops/%2e%2e/metrics', '//metrics', '/ops%2Fdata']) {
      const answer = await rawRequest(ops, `GET ${target} HTTP/1.1`, [host, 'Authorization: ' + bearer.authorization]);
      expect(answer.status, target).toBe(400);
    }
    expect((await rawRequest(ops, 'GET /healthcheck HTTP/1.1', ['Host: not a host'])).status).toBe(400);
    const probe = await get(`${ops}/healthcheck`);
    expect(probe.headers.get('x-content-type-options')).toBe('nosniff');
    expect(probe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('applies MAX_BODY_BYTES there: a larger body is 413 with a JSON error', async () => {
    const answer = await fetch(`${opsUrlOf(guarded)}/ops/data`, { method: 'POST', headers: { 'content-type': 'application/json', ...basic }, body: JSON.stringify({ padding: 'x'.repeat(4096) }) });
    expect([answer.status, codeOf(await answer.text())]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('names the ops URL in the start banner and in the gateway.started line', () => {
    const ops = opsUrlOf(guarded);
    expect(guarded.output()).toContain(` Probes, /metrics and /ops/ on ${ops}`);
    const started = guarded.output().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { event?: string; url?: string; opsUrl?: string }).find((line) => line.event === 'gateway.started');
    expect(started).toMatchObject({ url: guarded.url, opsUrl: ops });
  });
});

describe('without OPS_PORT', () => {
  it('serves /metrics and /ops/ on PORT, and names no ops URL', async () => {
    const gateway = await gatewayWith({ OPS_TOKEN: TOKEN });
    expect(gateway.opsUrl).toBeUndefined();
    expect((await get(`${gateway.url}/metrics`, bearer)).status).toBe(200);
    expect((await get(`${gateway.url}/ops/`, basic)).status).toBe(200);
    expect(gateway.output()).not.toContain('/ops/ on');
  });
});

describe('OPS_PORT at start and at SIGTERM', () => {
  it('stops the start when OPS_PORT is taken, leaving PORT closed', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = await freePort();
    try {
      await expect(startTestGateway({ PORT: String(port), OPS_PORT: String((taken.address() as AddressInfo).port) })).rejects.toThrow(/EADDRINUSE/);
      expect(await connectionRefused(`http://127.0.0.1:${port}`)).toBe(true);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('drains both listeners: /readiness 503 on both at once, both serving through SHUTDOWN_DELAY, then neither listens', async () => {
    const gateway = await gatewayWith({ OPS_PORT: '0', OPS_TOKEN: TOKEN, SHUTDOWN_DELAY: '1500ms', SHUTDOWN_TIMEOUT: '2s' });
    const ops = opsUrlOf(gateway);
    const drained = gateway.drain();
    for (const url of [gateway.url, ops]) {
      const readiness = await get(`${url}/readiness`);
      expect([readiness.status, (JSON.parse(readiness.text) as { status: string }).status], url).toEqual([503, 'stopping']);
      expect((await get(`${url}/healthcheck`)).status, url).toBe(200);
    }
    const graphql = await fetch(`${gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    expect(graphql.status).toBe(200);
    expect((await get(`${ops}/metrics`, bearer)).status).toBe(200);
    expect(await connectionRefused(gateway.url)).toBe(false);
    await drained;
    expect(await connectionRefused(gateway.url)).toBe(true);
    expect(await connectionRefused(ops)).toBe(true);
  });
});
