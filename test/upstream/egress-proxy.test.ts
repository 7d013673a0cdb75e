/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY end to end: gateways in this process on the emulators, with
 * a real egress proxy between them (test/support/egress-proxy.ts). Every upstream call (sign-in,
 * GraphQL, the drop-in front, the readiness probe) and the OTLP export go through it; a NO_PROXY
 * host is reached directly; Redis and the built-in emulator never go through it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { startEgressProxy, type EgressProxy, type ProxiedRequest } from '../support/egress-proxy';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { tracingEnv } from '../support/tracing';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
let proxy: EgressProxy;
let receiver: OtlpReceiver;
beforeAll(async () => {
  [proxy, receiver] = await Promise.all([startEgressProxy(), startOtlpReceiver()]);
});
afterAll(async () => {
  await Promise.all([proxy.close(), receiver.close()]);
});
beforeEach(() => {
  proxy.requests.splice(0);
});

const upstreamEnv = () => ({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY });
const hostOf = (url: string) => new URL(url).host;
const to = (url: string) => (proxied: ProxiedRequest) => proxied.target === hostOf(url);
const summary = (proxied: ProxiedRequest) => `${proxied.method} ${proxied.target}${proxied.path ?? ''}`;

async function signedIn(gateway: TestGateway, environment: 'SANDBOX' | 'PRODUCTION' = 'SANDBOX'): Promise<Browser> {
  const browser = new Browser(gateway.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password, environment)).codes).toEqual([]);
  return browser;
}

describe('through HTTP_PROXY', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ ...upstreamEnv(), ...tracingEnv(receiver.url), HTTP_PROXY: proxy.url });
  });
  afterAll(async () => {
    await gateway.stop();
  });

  it('sends the sign-in and the GraphQL calls upstream through the proxy', async () => {
    const browser = await signedIn(gateway);
    const answer = await browser.graphql('{ secretGreeting { response } }');
    expect(answer.codes).toEqual([]);
    expect(proxy.requests.filter(to(sandbox.url)).map(summary)).toEqual([
      `POST ${hostOf(sandbox.url)}/v2/auth/sign_in`,
      `POST ${hostOf(sandbox.url)}/v2/graphql`,
    ]);
  });

  it('sends the drop-in front\'s calls through the proxy', async () => {
    const answer = await fetch(`${gateway.url}/production/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password }) });
    expect(answer.status).toBe(200);
    expect(proxy.requests.filter(to(production.url)).map(summary)).toEqual([`POST ${hostOf(production.url)}/v2/auth/sign_in`]);
  });

  it('probes the upstreams for /readiness through the proxy', async () => {
    await fetch(`${gateway.url}/readiness`);
    await expect.poll(() => proxy.requests.filter((proxied) => proxied.method === 'GET').map(summary).sort()).toEqual(
      [`GET ${hostOf(sandbox.url)}/v2/graphql`, `GET ${hostOf(production.url)}/v2/graphql`].sort(),
    );
  });

  it('exports its spans to the collector through the proxy', async () => {
    await signedIn(gateway);
    await receiver.waitFor((spans) => spans.length > 0);
    await expect.poll(() => proxy.requests.filter(to(receiver.url)).map(summary)).toContain(`POST ${hostOf(receiver.url)}/v1/traces`);
  });

  it('never sends Redis through it: the proxy carried only upstream calls and the export', async () => {
    await signedIn(gateway);
    const allowed = new Set([hostOf(sandbox.url), hostOf(production.url), hostOf(receiver.url)]);
    expect(proxy.requests.filter((proxied) => !allowed.has(proxied.target)).map(summary)).toEqual([]);
    expect(proxy.requests.filter((proxied) => proxied.target.endsWith(`:${new URL(TEST_REDIS_URL).port}`))).toEqual([]);
  });
});

describe('NO_PROXY', () => {
  it('reaches the hosts it names directly, and the others through the proxy', async () => {
    const gateway = await startTestGateway({ ...upstreamEnv(), HTTP_PROXY: proxy.url, NO_PROXY: `example.com,${hostOf(sandbox.url)}` });
    try {
      await signedIn(gateway, 'SANDBOX');
      await signedIn(gateway, 'PRODUCTION');
      // The readiness probes (GET) aside: POSTs are the logins.
      const posts = proxy.requests.filter((proxied) => proxied.method === 'POST').map(summary);
      expect(posts).toEqual([`POST ${hostOf(production.url)}/v2/auth/sign_in`]);
    } finally {
      await gateway.stop();
    }
  });
});

describe('the built-in emulator', () => {
  it('is reached directly, proxy or not: it listens in the gateway\'s own process', async () => {
    const gateway = await startTestGateway({ HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url });
    try {
      const browser = await signedIn(gateway);
      expect((await browser.graphql('{ secretGreeting { response } }')).codes).toEqual([]);
      expect(proxy.requests.map(summary)).toEqual([]);
    } finally {
      await gateway.stop();
    }
  });
});
