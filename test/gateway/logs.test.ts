/**
 * A full login-and-query flow writes JSON logs with named events and none of the secrets: the
 * password, the upstream tokens and client ids, the cookie.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGatewayBehindRecordingProxy, type TestGateway } from '../support/gateway';
import { ADD_NEC, VALID_NEC } from '../support/statements';

const setup = useGatewayBehindRecordingProxy({ LOG_LEVEL: 'trace' });
const { sandbox, production, gateway } = setup;

type LogLine = { event?: string; requestId?: string; path?: string; status?: number };
const logLines = (output: string): LogLine[] => output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as LogLine);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('logs', () => {
  it('a full login-and-query flow writes none of the password, tokens, client ids or cookie', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { rotateTokens: true });
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const cookieValue = browser.cookie?.split('=')[1] ?? '';
    // The user's keyed name, then the session's 256 random bits: neither the cookie nor its random part is ever logged.
    expect(cookieValue).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    const sessionId = cookieValue.split('.')[1] ?? '';
    for (let i = 0; i < 3; i++) expect((await browser.graphql('{ secretGreeting { response } }')).codes).toEqual([]);
    expect((await browser.graphql(ADD_NEC, { s: [VALID_NEC] })).codes).toEqual([]);
    await browser.graphql('{ nope }');
    expect((await new Browser(gateway.current.url).login(DEMO_ACCOUNT.email, 'wrong-password-here')).codes).toEqual(['INVALID_CREDENTIALS']);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 500 });
    expect((await browser.graphql('{ secretGreeting { response } }')).codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null });
    expect((await browser.graphql('mutation { logout }')).codes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const secrets = new Set<string>([DEMO_ACCOUNT.password, 'wrong-password-here', cookieValue, sessionId]);
    for (const exchange of setup.proxy.exchanges) {
      for (const name of ['access-token', 'client', 'authorization']) {
        const value = exchange.responseHeaders[name]?.trim() ?? (exchange.requestHeaders[name] as string | undefined)?.trim();
        if (value) secrets.add(value);
      }
    }
    expect(secrets.size).toBeGreaterThan(5);

    const output = gateway.current.output();
    for (const secret of secrets) expect(output).not.toContain(secret);

    const events = output.split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { event?: string }).event);
    expect(events).toEqual(expect.arrayContaining(['gateway.started', 'session.login', 'session.login-refused', 'upstream.failed', 'session.logout', 'request.completed']));
  });
});

describe('request ids', () => {
  let proxied: TestGateway | undefined;
  beforeAll(async () => {
    proxied = await startTestGateway({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY, TRUST_PROXY: '1' });
  });
  afterAll(async () => {
    await proxied?.stop();
  });

  const idOf = async (url: string, incoming?: string) => {
    const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(incoming ? { 'x-request-id': incoming } : {}) }, body: '{"query":"{ __typename }"}' });
    await response.arrayBuffer();
    return response.headers.get('x-request-id') ?? '';
  };

  it('sends a generated id back and writes it on the request\'s lines, also from an upstream failure inside Mesh', async () => {
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    const failed = await browser.graphql('{ secretGreeting { response } }');
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null });
    expect(failed.codes).toEqual(['UPSTREAM_UNAVAILABLE']);
    const id = failed.headers.get('x-request-id') ?? '';
    expect(id).toMatch(UUID);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = logLines(gateway.current.output()).filter((line) => line.requestId === id);
    expect(lines.map((line) => line.event)).toEqual(expect.arrayContaining(['upstream.failed', 'request.completed']));
    expect(lines.find((line) => line.event === 'request.completed')?.status).toBe(503);
    // Lines of other requests carry their own ids; lines outside any request carry none.
    const started = logLines(gateway.current.output()).find((line) => line.event === 'gateway.started');
    expect(started?.requestId).toBeUndefined();
  });

  it('keeps a sane incoming X-Request-Id only behind a trusted proxy (TRUST_PROXY), and replaces any other', async () => {
    expect(await idOf(proxied!.url, 'edge-4b1c.7:9_a')).toBe('edge-4b1c.7:9_a');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logLines(proxied!.output()).some((line) => line.event === 'request.completed' && line.requestId === 'edge-4b1c.7:9_a')).toBe(true);
    for (const invalid of ['has spaces in it', 'x'.repeat(129), 'quote"d', '']) {
      expect(await idOf(proxied!.url, invalid), JSON.stringify(invalid)).toMatch(UUID);
    }
    // Without TRUST_PROXY the client's own id is never taken.
    expect(await idOf(gateway.current.url, 'edge-4b1c.7:9_a')).toMatch(UUID);
  });
});
