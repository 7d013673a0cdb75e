/**
 * The drop-in front at the HTTP level: answers with the upstream's status line and a
 * Content-Length (read with node:http, which shows the raw reason phrase and framing), forged
 * credentials never echoed, and every front request logged without a credential or password.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { takeUpstreamRequests } from '../support/cache';
import { control, type Credential } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { eventually } from '../support/timing';

const PASSWORD = 'a-long-enough-password-123';
const CREDENTIAL_HEADERS = ['access-token', 'authorization', 'client', 'expiry', 'token-type', 'uid'];
const json = { 'content-type': 'application/json' };

interface RawAnswer {
  readonly status: number;
  readonly reason: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request with node:http: the raw reason phrase and framing headers, as a strict client sees them. */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', headers: res.headers, body: text }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/** What a client compares: status line, framing, body, and which credential headers came. */
const framing = (answer: RawAnswer) => ({
  status: answer.status,
  reason: answer.reason,
  contentLength: answer.headers['content-length'] === String(Buffer.byteLength(answer.body)),
  transferEncoding: answer.headers['transfer-encoding'],
  credentialHeaders: CREDENTIAL_HEADERS.filter((name) => answer.headers[name] !== undefined),
});

describe('the drop-in front over HTTP', () => {
  const { sandbox, gateway } = useGatewayOnEmulators();

  async function newUser(label: string): Promise<string> {
    const email = `front-http-${label}-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    return email;
  }
  const signInBody = (email: string, password = PASSWORD) => JSON.stringify({ email, password });
  const credentialOf = (answer: RawAnswer): Credential => ({ 'access-token': String(answer.headers['access-token']), client: String(answer.headers.client), uid: String(answer.headers.uid) });

  it("answers sign-in (200 and 401), GraphQL and sign-out with the upstream's status line and a Content-Length, not chunked", async () => {
    const email = await newUser('framing');
    const pairs: [string, RawAnswer, RawAnswer][] = [];
    const both = async (step: string, path: string, method: string, headers: Record<string, string>, body?: string) => {
      const upstream = await raw(`${sandbox.url}${path}`, method, headers, body);
      const front = await raw(`${gateway.current.url}${path}`, method, headers, body);
      pairs.push([step, upstream, front]);
      return front;
    };
    const signedIn = await both('sign-in', '/v2/auth/sign_in', 'POST', json, signInBody(email));
    await both('sign-in refused', '/v2/auth/sign_in', 'POST', json, signInBody(email, 'wrong-password-0000000'));
    const credential = credentialOf(signedIn);
    await both('graphql', '/v2/graphql', 'POST', { ...json, ...credential }, '{"query":"{ secretGreeting { response } }"}');
    await both('graphql without a credential', '/v2/graphql', 'POST', json, '{"query":"{ secretGreeting { response } }"}');
    await both('graphql refused', '/v2/graphql', 'POST', { ...json, ...credential, 'access-token': 'forged-token-000000' }, '{"query":"{ secretGreeting { response } }"}');
    await both('sign-out of an unknown client', '/v2/auth/sign_out', 'DELETE', { ...credential, client: 'unknown-client' });
    // Signed out at the upstream only: the gateway still runs the verified credential, and the
    // upstream's refusal comes back as it was.
    expect((await raw(`${sandbox.url}/v2/auth/sign_out`, 'DELETE', { ...credential })).status).toBe(200);
    await both('graphql refused for a verified credential', '/v2/graphql', 'POST', { ...json, ...credential }, '{"query":"{ secretGreeting { response } }"}');

    for (const [step, upstream, front] of pairs) {
      expect(framing(front), step).toEqual(framing(upstream));
      expect(front.reason, step).not.toBe('');
      expect(front.body.replaceAll(email, '<email>'), step).toEqual(upstream.body.replaceAll(email, '<email>'));
    }
    expect(pairs.map(([, , front]) => `${front.status} ${front.reason}`)).toEqual(['200 OK', '401 Unauthorized', '200 OK', '401 Unauthorized', '401 Unauthorized', '404 Not Found', '401 Unauthorized']);
  });

  it('answers { __typename } with a forged credential as the upstream does, echoing none of it', async () => {
    const forged = { ...json, 'access-token': 'bogus', client: 'bogus-client', uid: 'someone@example.com' };
    const body = '{"query":"{ __typename }"}';
    const upstream = await raw(`${sandbox.url}/v2/graphql`, 'POST', forged, body);
    await takeUpstreamRequests(sandbox.url);
    const front = await raw(`${gateway.current.url}/v2/graphql`, 'POST', forged, body);
    // Passed through: the upstream, not the gateway, answered.
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.operations)).toEqual([['__typename']]);
    expect(framing(front)).toEqual(framing(upstream));
    expect(front.body).toBe(upstream.body);
    expect(framing(front).credentialHeaders).toEqual([]);
    expect(JSON.stringify(front.headers)).not.toContain('bogus');
  });

  it('holds GraphQL it passes through (a credential in the body) to the gateway\'s PDF limit: 30 full pages of PDFs are refused before the upstream (regression)', async () => {
    const email = await newUser('body-credential');
    expect((await control(sandbox.url, 'POST', '/__emulator/statements', { email, form: 'F1099nec', count: 2 })).status).toBe(201);
    const credential = credentialOf(await raw(`${gateway.current.url}/v2/auth/sign_in`, 'POST', json, signInBody(email)));
    const page = (alias: number) => `p${alias}: getStatements(first: 100) { statements { nodes { otxId pdf } } }`;
    const ask = (count: number) => raw(`${gateway.current.url}/v2/graphql`, 'POST', json, JSON.stringify({ query: `{ ${Array.from({ length: count }, (_, index) => page(index)).join(' ')} }`, ...credential }));
    await takeUpstreamRequests(sandbox.url);
    const refused = await ask(30);
    expect(refused.status).toBe(400);
    expect((JSON.parse(refused.body) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
    // Read by its media type, as the upstream reads it: a form, and JSON text sent as a form (a
    // harmless document for a JSON reader, 30 pages for the upstream's form reader: regression).
    const heavy = `{ ${Array.from({ length: 30 }, (_, index) => page(index)).join(' ')} }`;
    const form = new URLSearchParams({ query: heavy, ...credential }).toString();
    const formType = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
    const polyglot = `{"query":"{ __typename }","x":"&${form}&y="}`;
    for (const body of [form, polyglot]) {
      const answer = await raw(`${gateway.current.url}/v2/graphql`, 'POST', formType, body);
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('QUERY_TOO_COMPLEX');
    }
    const multipart = await raw(`${gateway.current.url}/v2/graphql`, 'POST', { 'content-type': 'multipart/form-data; boundary=x' }, `--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n${heavy}\r\n--x--`);
    expect(multipart.status).toBe(415);
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
    // Five pages are within the limit: passed through, answered by the upstream for the body's credential.
    const allowed = await ask(5);
    expect(allowed.status).toBe(200);
    expect(allowed.body).toContain('"p4"');
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.uid)).toEqual([email]);
  });

  it("answers its own refusals (401, 404, 400, 415, 413) with the standard reason phrase and a Content-Length, not chunked (regression)", async () => {
    const answers = [
      await raw(`${gateway.current.url}/v2/auth/sign_in`, 'POST', json, '{}'),
      await raw(`${gateway.current.url}/v2/graphql`, 'GET', {}),
      await raw(`${gateway.current.url}/production/v2/graphql`, 'POST', { ...json, 'x-upstream-environment': 'sandbox' }, '{"query":"{ __typename }"}'),
      await raw(`${gateway.current.url}/v2/graphql`, 'POST', { 'content-type': 'multipart/form-data; boundary=x' }, '--x--'),
      // Over the upstream's 20 MiB, the front's limit too.
      await raw(`${gateway.current.url}/v2/graphql`, 'POST', json, JSON.stringify({ query: `{ __typename ${'x'.repeat(21 * 1024 * 1024)} }` })),
    ];
    expect(answers.map((answer) => `${answer.status} ${answer.reason}`)).toEqual(['401 Unauthorized', '404 Not Found', '400 Bad Request', '415 Unsupported Media Type', '413 Payload Too Large']);
    for (const answer of answers) {
      expect(answer.headers['content-length'], `${answer.status}`).toBe(String(Buffer.byteLength(answer.body)));
      expect(answer.headers['transfer-encoding'], `${answer.status}`).toBeUndefined();
    }
  });

  it('answers a method the upstream does not route, a body Yoga does not read as JSON and malformed JSON on every front path byte for byte as the upstream does (regression: 405 and 415 of its own)', async () => {
    const email = await newUser('upstream-answers');
    const credential = credentialOf(await raw(`${gateway.current.url}/v2/auth/sign_in`, 'POST', json, signInBody(email)));
    const preflight = { origin: 'https://app.example', 'access-control-request-method': 'POST' };
    const malformed = '{"query": "{ __typename }"';
    // [method, front path, headers, body]: the upstream is asked the same on its own path.
    const requests: [string, string, Record<string, string>, string?][] = [
      ['GET', '/v2/graphql', {}],
      ['GET', '/v2/graphql?query=%7B__typename%7D', { ...credential }],
      ['PUT', '/v2/graphql', json, '{"query":"{ __typename }"}'],
      ['DELETE', '/v2/graphql', { ...credential }],
      ['HEAD', '/v2/graphql', {}],
      ['OPTIONS', '/v2/graphql', preflight],
      ['GET', '/v2/auth/sign_in', {}],
      ['DELETE', '/v2/auth/sign_in', json, '{}'],
      ['OPTIONS', '/v2/auth/sign_in', preflight],
      ['GET', '/v2/auth/sign_out', { ...credential }],
      ['POST', '/v2/auth/sign_out', { ...json, ...credential }, '{}'],
      ['GET', '/sandbox/v2/graphql', {}],
      ['PATCH', '/production/v2/auth/sign_out', json, '{}'],
      ['POST', '/v2/graphql', { 'content-type': 'text/plain', ...credential }, '{"query":"{ __typename }"}'],
      ['POST', '/v2/graphql', { 'content-type': 'application/x-www-form-urlencoded', ...credential }, 'query=%7B__typename%7D'],
      ['POST', '/v2/graphql', { ...credential }, '{"query":"{ __typename }"}'],
      ['POST', '/v2/auth/sign_in', { 'content-type': 'multipart/form-data; boundary=x' }, '--x--'],
      ['POST', '/v2/auth/sign_in', json, malformed],
      ['POST', '/v2/graphql', json, malformed],
      ['POST', '/v2/graphql', { ...json, ...credential }, malformed],
      ['POST', '/v2/graphql', { 'content-type': 'Application/JSON', ...credential }, malformed],
    ];
    const failures: string[] = [];
    for (const [method, path, headers, body] of requests) {
      const upstream = await raw(`${sandbox.url}${path.replace(/^\/(sandbox|production)/, '')}`, method, headers, body);
      const front = await raw(`${gateway.current.url}${path}`, method, headers, body);
      const seen = (answer: RawAnswer) => `${answer.status} ${answer.reason} | ${String(answer.headers['content-type'])} | ${String(answer.headers['content-length'] ?? 'no length')} | ${answer.body}`;
      if (seen(front) !== seen(upstream)) failures.push(`${method} ${path}: ${seen(front)}, upstream: ${seen(upstream)}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers malformed JSON on sign-in and GraphQL, with and without a verified credential, as the upstream does (regression)', async () => {
    const email = await newUser('malformed');
    const credential = credentialOf(await raw(`${gateway.current.url}/v2/auth/sign_in`, 'POST', json, signInBody(email)));
    const malformed = '{"query": "{ __typename }"';
    for (const [path, headers] of [['/v2/auth/sign_in', json], ['/v2/graphql', json], ['/v2/graphql', { ...json, ...credential }]] as const) {
      const upstream = await raw(`${sandbox.url}${path}`, 'POST', headers, malformed);
      const front = await raw(`${gateway.current.url}${path}`, 'POST', headers, malformed);
      expect(upstream.body).toBe('{"status":400,"error":"Bad Request","errors":["There was a problem in the JSON you submitted"]}');
      expect(framing(front), path).toEqual(framing(upstream));
      expect(front.body, path).toBe(upstream.body);
    }
  });

  it('logs every front request with its path, status and uid, and never a token, client id or password', async () => {
    const email = await newUser('logs');
    const before = gateway.current.output().length;
    const signedIn = await raw(`${gateway.current.url}/v2/auth/sign_in`, 'POST', json, signInBody(email));
    const credential = credentialOf(signedIn);
    await raw(`${gateway.current.url}/v2/auth/sign_in`, 'POST', json, signInBody(email, 'wrong-password-0000000'));
    await raw(`${gateway.current.url}/v2/graphql`, 'POST', { ...json, ...credential }, '{"query":"{ secretGreeting { response } }"}');
    await raw(`${gateway.current.url}/production/v2/graphql`, 'POST', json, '{"query":"{ __typename }"}');
    await raw(`${gateway.current.url}/v2/auth/sign_out`, 'DELETE', { ...credential });
    // Log lines are written as each answer ends, possibly after the client read it.
    const completedLines = (text: string) => text.split('\n').filter((line) => line.includes('"event":"request.completed"')).length;
    const output = await eventually(() => gateway.current.output().slice(before), (text) => completedLines(text) >= 5);
    const completed = output.split('\n').filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event?: string; method?: string; path?: string; status?: number; durationMs?: number; uid?: string })
      .filter((entry) => entry.event === 'request.completed')
      .map(({ method, path, status, uid, durationMs }) => ({ method, path, status, uid, timed: typeof durationMs === 'number' }));
    expect(completed).toEqual([
      { method: 'POST', path: '/v2/auth/sign_in', status: 200, uid: email, timed: true },
      { method: 'POST', path: '/v2/auth/sign_in', status: 401, uid: undefined, timed: true },
      { method: 'POST', path: '/v2/graphql', status: 200, uid: email, timed: true },
      { method: 'POST', path: '/production/v2/graphql', status: 200, uid: undefined, timed: true },
      { method: 'DELETE', path: '/v2/auth/sign_out', status: 200, uid: email, timed: true },
    ]);
    for (const secret of [credential['access-token'], credential.client, PASSWORD, 'wrong-password-0000000', String(signedIn.headers.authorization)]) {
      expect(output).not.toContain(secret);
    }
  });
});
