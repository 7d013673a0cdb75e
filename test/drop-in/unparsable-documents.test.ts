/**
 * Bodies whose query graphql-js cannot parse, on the drop-in front's pass-through: the gateway
 * cannot measure them (limits, root fields), so they never go upstream (the upstream's own parser
 * might read them otherwise). They used to be forwarded as they came, weighing one root field. The
 * front answers as the upstream answers the same request: without a credential, devise's 401;
 * with a credential the front verified, the syntax error (200, with its locations); with one it has
 * not, the upstream is asked about the credential with an empty query, never the document. A
 * gateway in this process on the test Redis, a recording proxy before the sandbox emulator.
 */
import { describe, expect, it } from 'vitest';
import { takeUpstreamRequests } from '../support/cache';
import { DEMO_ACCOUNT, signInRaw, credentialFrom, type Credential } from '../support/emulator';
import { useGatewayBehindRecordingProxy } from '../support/gateway';

const setup = useGatewayBehindRecordingProxy();
const { sandbox, gateway } = setup;

/** A syntax error after a long valid prefix: what reaches the upstream is told apart by its size. */
const UNPARSABLE = `query Long { ${Array.from({ length: 60 }, (_, i) => `a${i}: secretGreeting { response }`).join(' ')} getStatements(`;
const FORM = 'application/x-www-form-urlencoded';

interface Answer {
  readonly status: number;
  readonly type: string | null;
  readonly body: unknown;
  readonly credential: Record<string, string | null>;
}

async function post(base: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${base}/v2/graphql`, { method: 'POST', headers, body });
  const credential = Object.fromEntries(['access-token', 'client', 'uid', 'expiry'].map((name) => [name, response.headers.get(name)]));
  return { status: response.status, type: response.headers.get('content-type'), body: JSON.parse(await response.text()) as unknown, credential };
}

/** The same request to the front and to the emulator itself; the front's first, so its upstream traffic is its own. */
async function both(body: string, headers: Record<string, string>) {
  await takeUpstreamRequests(sandbox.url);
  setup.proxy.exchanges.splice(0);
  const front = await post(gateway.current.url, body, headers);
  const upstreamSaw = await takeUpstreamRequests(sandbox.url);
  const bytesSent = setup.proxy.exchanges.filter((exchange) => exchange.path === '/v2/graphql').map((exchange) => exchange.requestBytes);
  const upstream = await post(sandbox.url, body, headers);
  return { front, upstream, upstreamSaw, bytesSent };
}

const json = (query: string, extra: Record<string, unknown> = {}) => JSON.stringify({ query, ...extra });
const form = (query: string) => new URLSearchParams({ query }).toString();

describe('a document graphql-js cannot parse, passed to the drop-in front', () => {
  it('without a credential is answered as the upstream answers it (401), and the upstream hears nothing (regression)', async () => {
    const bodies = { json: json(UNPARSABLE), named: json('{ a } }', { operationName: 'A', variables: { x: 1 } }), form: form(UNPARSABLE) };
    for (const [name, body] of Object.entries(bodies)) {
      const { front, upstream, upstreamSaw } = await both(body, { 'content-type': name === 'form' ? FORM : 'application/json' });
      expect(upstream.status, name).toBe(401);
      expect(front, name).toEqual(upstream);
      expect(upstreamSaw, name).toEqual([]);
    }
  });

  it('with a credential the front verified is answered with the syntax error and its locations (200), as the upstream does, and the upstream hears nothing', async () => {
    const signedIn = await signInRaw(gateway.current.url, DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    const credential: Credential = credentialFrom(signedIn.headers);
    // A form body is passed through even with a verified credential (the pipeline reads JSON only).
    const { front, upstream, upstreamSaw } = await both(form(UNPARSABLE), { 'content-type': FORM, ...credential });
    expect(upstream.status).toBe(200);
    expect(upstream.body).toEqual({ errors: [{ message: expect.stringMatching(/^Syntax Error/), locations: [{ line: 1, column: expect.any(Number) }] }] });
    expect(front).toEqual(upstream);
    expect(upstreamSaw).toEqual([]);
  });

  it('with a credential the front has not verified asks the upstream about the credential with an empty query, never the document, and answers as it does', async () => {
    // Signed in at the upstream itself: the front has never seen this credential.
    const credential: Credential = credentialFrom((await signInRaw(sandbox.url, DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).headers);
    const forged: Credential = { ...credential, 'access-token': 'forged-token' };
    for (const headers of [{ 'content-type': 'application/json', ...credential }, { 'content-type': 'application/json', ...forged }]) {
      const { front, upstream, upstreamSaw, bytesSent } = await both(json(UNPARSABLE), headers);
      expect(front).toEqual(upstream);
      expect(upstreamSaw.map((request) => request.operations)).toEqual([[]]);
      expect(bytesSent).toHaveLength(1);
      expect(bytesSent[0]).toBeLessThan(100);
    }
  });
});
