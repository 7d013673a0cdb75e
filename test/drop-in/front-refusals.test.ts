/**
 * The drop-in front's own refusals, for a credential it verified (so it answers them itself), are
 * the upstream's for the same request: a syntax error (the Go tutorial client's unescaped `"`), a
 * validation error, variables that do not fit, a body with no or an empty query or `[]`, and a
 * body over the upstream's 20 MiB. Each is sent to the emulator and to the front, and the status,
 * body and devise's credential headers compared.
 */
import { describe, expect, it } from 'vitest';
import { control, type Credential } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { sendThenRead } from '../support/raw-http';

const PASSWORD = 'a-long-enough-password-123';
const CREDENTIAL_HEADERS = ['access-token', 'token-type', 'client', 'expiry', 'uid', 'authorization'];

interface Seen {
  readonly status: number;
  readonly body: unknown;
  readonly credential: Record<string, string | null>;
}

async function post(url: string, credential: Credential, body: string): Promise<Seen> {
  const answer = await fetch(`${url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body });
  const text = await answer.text();
  return { status: answer.status, body: JSON.parse(text) as unknown, credential: Object.fromEntries(CREDENTIAL_HEADERS.map((name) => [name, answer.headers.get(name)])) };
}

describe("the drop-in front's own refusals", () => {
  const { sandbox, gateway } = useGatewayOnEmulators();

  async function verifiedCredential(): Promise<Credential> {
    const email = `front-refusals-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(signedIn.status).toBe(200);
    return { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };
  }

  it('answers syntax, validation and variable errors as the upstream does: 200, locations, no extensions, the credential echoed (regression)', async () => {
    const credential = await verifiedCredential();
    const bodies = [
      // The Go tutorial client writes a value's `"` unescaped.
      JSON.stringify({ query: '{ getStatements(uploaderIds: ["a"b"]) { errors } }' }),
      JSON.stringify({ query: '{ secretGreetin { response } }' }),
      JSON.stringify({ query: '{ secretGreeting { response } nope }' }),
      JSON.stringify({ query: 'query($u: [String!]) { getStatements(uploaderIds: $u) { errors } }', variables: { u: [5] } }),
    ];
    for (const body of bodies) {
      const upstream = await post(sandbox.url, credential, body);
      const front = await post(gateway.current.url, credential, body);
      expect(upstream.status, body).toBe(200);
      expect(front, body).toEqual(upstream);
      expect(JSON.stringify(front.body), body).toContain('"locations"');
      expect(JSON.stringify(front.body), body).not.toContain('extensions');
      expect(front.credential['access-token'], body).toBe(credential['access-token']);
    }
  });

  it('answers a body with no query, an empty query or a JSON array as the upstream does: 200 "No query string was present" (regression: 400 BAD_REQUEST)', async () => {
    const credential = await verifiedCredential();
    for (const body of ['{}', '{"query":""}', '{"query":null}', '[]', '[{"query":"{ secretGreeting { response } }"}]']) {
      const upstream = await post(sandbox.url, credential, body);
      const front = await post(gateway.current.url, credential, body);
      expect(upstream.body, body).toEqual({ errors: [{ message: 'No query string was present' }] });
      expect(front, body).toEqual(upstream);
    }
  });

  it("answers a body over the upstream's 20 MiB as the upstream does, to a client that writes 21 MiB slowly and reads only then (regression: a reset, or the gateway's own 413)", async () => {
    const credential = await verifiedCredential();
    const piece = Buffer.alloc(1024 * 1024, 'x');
    const pieces = Array.from({ length: 21 }, () => piece);
    const send = (url: string) => {
      const head = [
        'POST /v2/graphql HTTP/1.1', `Host: ${new URL(url).host}`, 'Content-Type: application/json',
        `Content-Length: ${21 * piece.length}`, ...Object.entries(credential).map(([name, value]) => `${name}: ${value}`),
      ].join('\r\n');
      return sendThenRead(url, head, pieces, 30_000, 20);
    };
    const upstream = await send(sandbox.url);
    const front = await send(gateway.current.url);
    expect(upstream.error).toBeUndefined();
    expect(upstream.status).toBe(413);
    expect(front.error).toBeUndefined();
    expect(front.status).toBe(413);
    expect(JSON.parse(front.body)).toEqual(JSON.parse(upstream.body));
    expect(front.headers['content-type']).toBe(upstream.headers['content-type']);
    expect(front.headers['access-token']).toBeUndefined();
  });
});
