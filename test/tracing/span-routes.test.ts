/**
 * The SERVER span names a route by the gateway's own template, never by what the client put in
 * the path (src/tracing/server-span.ts, src/gateway/route-templates.ts): a statement's otxId stays
 * out of every span, and a path no route matches keeps only its first segment. Checked against the
 * real OTLP receiver, on everything it was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { callerContext, spansOf, tracingEnv } from '../support/tracing';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
let receiver: OtlpReceiver;
let gateway: TestGateway;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  gateway = await startTestGateway({
    UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    ...tracingEnv(receiver.url),
  });
});
afterAll(async () => {
  await gateway.stop();
  await receiver.close();
});

/** Sends GET `path` in a fresh trace: its status and the trace's SERVER span. */
async function traced(path: string, headers: Record<string, string> = {}): Promise<{ status: number; server: ReceivedSpan | undefined; spans: ReceivedSpan[] }> {
  const caller = callerContext();
  const response = await fetch(`${gateway.url}${path}`, { headers: { ...headers, traceparent: caller.traceparent } });
  await response.arrayBuffer();
  const spans = await spansOf(receiver, caller.traceId);
  return { status: response.status, server: spans.find((span) => span.kind === SPAN_KIND.server), spans };
}

describe('the SERVER span\'s route', () => {
  // Regression: the path itself was the span's name and http.route, otxId and all, so every
  // statement (or any path a client made up) was a route of its own.
  it('names a PDF download by its template: no otxId in any span of its trace, nor in anything the collector got', async () => {
    const browser = new Browser(gateway.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const secrets = ['123-45-6789', 'john.doe'];
    const { status, server, spans } = await traced('/statements/123-45-6789%20john.doe@example.com/pdf', { cookie: browser.cookie ?? '' });
    expect(status).toBe(404);
    expect(server?.name).toBe('GET /statements/{otxId}/pdf');
    expect(server?.attributes).toMatchObject({ 'http.route': '/statements/{otxId}/pdf', 'url.path': '/statements/{otxId}/pdf', 'http.response.status_code': 404 });
    // The read it ran is in the same trace (its operation span): nothing of the id there either.
    expect(spans.length).toBeGreaterThan(1);
    for (const secret of secrets) {
      expect(JSON.stringify(spans.map((span) => span.raw)), secret).not.toContain(secret);
      for (const body of receiver.bodies) expect(body, secret).not.toContain(secret);
    }
  });

  it('gives a path that matches no route no http.route, and no url.path beyond its first segment, and that only when a route of the gateway\'s begins with it', async () => {
    const { status, server } = await traced('/a/secret-thing/x?token=also-secret');
    expect(status).toBe(404);
    expect(server?.name).toBe('GET');
    expect(server?.attributes['http.route']).toBeUndefined();
    expect(server?.attributes['url.path']).toBeUndefined();
    for (const body of receiver.bodies) expect(body).not.toMatch(/secret-thing|also-secret/);
    // A first segment of the client's own (an e-mail) is not kept; one of the gateway's is.
    expect((await traced('/demo@example.com/x')).server?.attributes['url.path']).toBeUndefined();
    expect((await traced('/statements/123-45-6789/not-pdf')).server?.attributes['url.path']).toBe('/statements');
    for (const body of receiver.bodies) expect(body).not.toMatch(/demo@example\.com|123-45-6789/);
  });

  it('names the gateway\'s own routes by their templates, whatever their answer', async () => {
    const cases: [string, string][] = [['/graphql?query=%7B__typename%7D', 'GET /graphql'], ['/healthcheck', 'GET /healthcheck'], ['/v2/graphql', 'GET /v2/graphql'], ['/production/v2/auth/sign_in', 'GET /production/v2/auth/sign_in']];
    for (const [path, name] of cases) {
      const { server } = await traced(path, { accept: 'application/json' });
      expect([server?.name, server?.attributes['http.route']], path).toEqual([name, name.slice('GET '.length)]);
    }
  });
});
