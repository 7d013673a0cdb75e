/**
 * Bad input, table-driven: every request below gets a JSON answer with the contract's code and
 * status, and nothing of the gateway's insides (no stack trace, file path or upstream URL); a good
 * request still works afterwards. And the limits still admit what real clients send.
 */
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT } from '../support/emulator';
import { Browser, useGatewayOnEmulators } from '../support/gateway';
import { chunked, dripUntilClosed, sendThenRead } from '../support/raw-http';
import { VALID_NEC } from '../support/statements';

interface BadRequest {
  readonly name: string;
  readonly path?: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** A string, raw bytes, or a value sent as JSON. */
  readonly body?: string | Buffer | { json: unknown };
  readonly query?: string;
  readonly status: number;
  /** The code the answer must carry (among its errors). */
  readonly code?: string;
  /** Instead of a code: the upstream's own answer, which the drop-in front gives in its place. */
  readonly upstreamBody?: string;
  /** What one of its messages must say, where the code alone cannot tell which limit refused. */
  readonly message?: RegExp;
  /** Send the demo session's cookie (and X-CSRF unless headers say otherwise). */
  readonly session?: boolean;
  /** Send the body as a stream of unknown length (Transfer-Encoding: chunked). */
  readonly chunked?: boolean;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const CSRF = { ...JSON_TYPE, 'x-csrf': '1' };
/**
 * The front's rows act with a credential the upstream accepted (the placeholders are replaced by
 * one signed in through the front): the front passes any other credential through to the upstream.
 */
const VERIFIED = '<signed in through the front>';
/** What the upstream (Rails, and the emulator) answers a JSON body it cannot parse. */
const UPSTREAM_BAD_JSON = '{"status":400,"error":"Bad Request","errors":["There was a problem in the JSON you submitted"]}';
const DROP_IN = { ...JSON_TYPE, 'access-token': VERIFIED, client: VERIFIED, uid: DEMO_ACCOUNT.email };
const query = (text: string, variables?: unknown) => ({ json: { query: text, ...(variables === undefined ? {} : { variables }) } });
const repeat = (text: string, count: number, separator = ' ') => Array.from({ length: count }, (_, index) => text.replaceAll('#', String(index))).join(separator);
const deep = (depth: number) => `{ ${'statementDefinitions { '.repeat(1)}${'definitions { '.repeat(depth)}identifier${' }'.repeat(depth + 1)} }`;
const LOGIN = 'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { uid } }';
/** What the upstream (Rails, and the emulator) answers a method it does not route on its paths. */
const UPSTREAM_NOT_FOUND = '{"status":404,"error":"Not Found"}';
const UPSTREAM_TOO_LARGE = '{"status":413,"error":"Payload Too Large","errors":["The request body is too large"]}';
/** `{ ...F0 }` where each fragment spreads the next twice: 2^25 expansions in under 1 KB. */
const FRAGMENT_BOMB = `{ ...F0 } ${Array.from({ length: 25 }, (_, level) => `fragment F${level} on Query { ...F${level + 1} ...F${level + 1} }`).join(' ')} fragment F25 on Query { secretGreeting { response } }`;
const UPDATE_PDFS = 'mutation($s: [Fw2UpdateInput!]!) { updateFw2Statements(statements: $s) { statements { statement { otxId pdf } } } }';
const COPIES = Array.from({ length: 600 }, () => ({ otxId: 'otx-1', statement: {} }));
/** UPDATE_PDFS with the same 600 items as `$s`'s default, sent without variables. */
const UPDATE_PDFS_BY_DEFAULT = UPDATE_PDFS.replace('!]!)', `!]! = [${repeat('{ otxId: "otx-1", statement: {} }', 600)}])`);
const CONFIRMATIONS = `mutation { ${repeat('c#: confirmRegistration(token: "guess-#") { response }', 200)} }`;

const CASES: BadRequest[] = [
  // Bodies and content types
  { name: 'malformed JSON', headers: JSON_TYPE, body: '{"query":', status: 400, code: 'BAD_REQUEST' },
  { name: 'an empty JSON body', headers: JSON_TYPE, body: '', status: 400, code: 'BAD_REQUEST' },
  { name: 'JSON null', headers: JSON_TYPE, body: 'null', status: 400, code: 'BAD_REQUEST' },
  { name: 'a JSON string', headers: JSON_TYPE, body: '"{ __typename }"', status: 400, code: 'BAD_REQUEST' },
  { name: 'no query', headers: JSON_TYPE, body: { json: {} }, status: 400, code: 'BAD_REQUEST' },
  { name: 'a query that is a number', headers: JSON_TYPE, body: { json: { query: 5 } }, status: 400, code: 'BAD_REQUEST' },
  { name: 'variables that are a list', headers: JSON_TYPE, body: { json: { query: '{ __typename }', variables: [1] } }, status: 400, code: 'BAD_REQUEST' },
  { name: 'an unknown operationName', headers: JSON_TYPE, body: { json: { query: 'query A { __typename }', operationName: 'B' } }, status: 400, code: 'BAD_REQUEST' },
  { name: 'two operations and no operationName', headers: JSON_TYPE, body: query('query A { __typename } query B { __typename }'), status: 400, code: 'BAD_REQUEST' },
  { name: 'text/plain', headers: { 'content-type': 'text/plain' }, body: '{"query":"{ __typename }"}', status: 415, code: 'BAD_REQUEST' },
  { name: 'no content type', body: '{"query":"{ __typename }"}', status: 415, code: 'BAD_REQUEST' },
  { name: 'a form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'query=%7B__typename%7D', status: 415, code: 'BAD_REQUEST' },
  { name: 'multipart', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\n\r\n--x--', status: 415, code: 'BAD_REQUEST' },
  { name: 'a 2 MB query', headers: JSON_TYPE, body: query(`{ __typename ${' '.repeat(2_000_000)} }`), status: 413, code: 'PAYLOAD_TOO_LARGE' },
  { name: 'a chunked 2 MB query', headers: JSON_TYPE, chunked: true, body: query(`{ __typename ${' '.repeat(2_000_000)} }`), status: 413, code: 'PAYLOAD_TOO_LARGE' },
  { name: 'a chunked body just over the limit', headers: JSON_TYPE, chunked: true, body: query(`{ __typename ${' '.repeat(1_048_576)} }`), status: 413, code: 'PAYLOAD_TOO_LARGE' },
  { name: 'chunked malformed JSON', headers: JSON_TYPE, chunked: true, body: '{"query":', status: 400, code: 'BAD_REQUEST' },
  { name: 'an empty chunked body', headers: JSON_TYPE, chunked: true, body: '', status: 400, code: 'BAD_REQUEST' },
  { name: 'a batch of 1,000 operations', headers: JSON_TYPE, body: { json: Array.from({ length: 1000 }, () => ({ query: '{ __typename }' })) }, status: 400, code: 'QUERY_TOO_COMPLEX' },
  { name: 'an empty batch', headers: JSON_TYPE, body: { json: [] }, status: 400, code: 'QUERY_TOO_COMPLEX' },
  // Documents
  { name: 'a syntax error', headers: JSON_TYPE, body: query('{ getStatements('), status: 400, code: 'GRAPHQL_PARSE_FAILED' },
  { name: 'a null byte', headers: JSON_TYPE, body: query('{ __typename \u0000 }'), status: 400, code: 'GRAPHQL_PARSE_FAILED' },
  { name: 'invalid UTF-8', headers: JSON_TYPE, body: Buffer.from([...Buffer.from('{"query":"{ __typename '), 0xff, 0xfe, ...Buffer.from(' }"}')]), status: 400, code: 'GRAPHQL_PARSE_FAILED' },
  { name: 'depth 50', headers: JSON_TYPE, body: query(deep(50)), status: 400, code: 'QUERY_TOO_COMPLEX' },
  { name: '500 aliases', headers: JSON_TYPE, body: query(`{ ${repeat('a#: session { uid }', 500)} }`), status: 400, code: 'QUERY_TOO_COMPLEX' },
  { name: '12,000 tokens in 24 KB (the token limit, under MAX_QUERY_BYTES)', headers: JSON_TYPE, body: query(`{ ${repeat('a', 12_000)} }`), status: 400, code: 'QUERY_TOO_COMPLEX', message: /Token limit of 10000/ },
  { name: 'a 129 KiB query text (MAX_QUERY_BYTES)', headers: JSON_TYPE, body: query(`{ __typename } # ${'x'.repeat(129 * 1024)}`), status: 400, code: 'QUERY_TOO_COMPLEX', message: /longer than 131072 bytes/ },
  { name: '200 directives', headers: JSON_TYPE, body: query(`{ __typename ${repeat('@skip(if: false)', 200)} }`), status: 400, code: 'QUERY_TOO_COMPLEX' },
  { name: 'an unknown field', headers: JSON_TYPE, body: query('{ nope }'), status: 400, code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'a misspelt field (no suggestion)', headers: JSON_TYPE, body: query('{ getStatement { errors } }'), status: 400, code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'an argument of the wrong type', headers: JSON_TYPE, body: query('{ getStatements(first: "ten") { errors } }'), status: 400, code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'an unknown argument', headers: JSON_TYPE, body: query('{ getStatements(limit: 1) { errors } }'), status: 400, code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'a variable of the wrong shape', headers: CSRF, session: true, body: query('query($f: Int) { getStatements(first: $f) { errors } }', { f: { nested: true } }), status: 400, code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'a missing required variable', headers: CSRF, body: query(LOGIN, { e: 'a@example.com' }), status: 400, code: 'GRAPHQL_VALIDATION_FAILED' },
  { name: 'a 25-level fragment bomb', headers: JSON_TYPE, body: query(FRAGMENT_BOMB), status: 400, code: 'QUERY_TOO_COMPLEX' },
  { name: 'a mutation of 600 statements selecting pdf', headers: CSRF, session: true, body: query(UPDATE_PDFS, { s: COPIES }), status: 400, code: 'QUERY_TOO_COMPLEX', message: /600 PDFs/ },
  { name: 'a mutation of 600 statements selecting pdf, by its variable\'s default', headers: CSRF, session: true, body: query(UPDATE_PDFS_BY_DEFAULT), status: 400, code: 'QUERY_TOO_COMPLEX', message: /600 PDFs/ },
  { name: 'a list variable given an object', headers: CSRF, session: true, body: query('mutation($s: [F1099necInput!]!) { addF1099necStatements(statements: $s) { errors } }', { s: [{ uploaderId: 5 }] }), status: 400, code: 'GRAPHQL_VALIDATION_FAILED' },
  // Methods
  { name: 'a mutation over GET', method: 'GET', path: `/graphql?query=${encodeURIComponent('mutation { logout }')}`, status: 405, code: 'BAD_REQUEST' },
  { name: 'GET without a query', method: 'GET', path: '/graphql?x=1', headers: { accept: 'application/json' }, status: 400, code: 'BAD_REQUEST' },
  { name: 'PUT', method: 'PUT', headers: JSON_TYPE, body: query('{ __typename }'), status: 405, code: 'BAD_REQUEST' },
  { name: 'DELETE', method: 'DELETE', status: 405, code: 'BAD_REQUEST' },
  // Identity
  { name: 'an oversized password', headers: CSRF, body: query(LOGIN, { e: DEMO_ACCOUNT.email, p: 'p'.repeat(100_000) }), status: 401, code: 'INVALID_CREDENTIALS' },
  { name: 'an oversized e-mail', headers: CSRF, body: query(LOGIN, { e: `${'e'.repeat(10_000)}@example.com`, p: 'x' }), status: 401, code: 'INVALID_CREDENTIALS' },
  { name: 'a forged cookie', headers: { ...CSRF, cookie: `sgw_session=${'A'.repeat(43)}` }, body: query('{ secretGreeting { response } }'), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'a truncated cookie', headers: { ...CSRF, cookie: 'sgw_session=abc' }, body: query('{ secretGreeting { response } }'), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'a cookie from a foreign Origin', session: true, headers: { ...CSRF, origin: 'https://evil.example' }, body: query('{ secretGreeting { response } }'), status: 403, code: 'CSRF_CHECK_FAILED' },
  { name: 'a cookie without X-CSRF', session: true, headers: JSON_TYPE, body: query('{ secretGreeting { response } }'), status: 403, code: 'CSRF_CHECK_FAILED' },
  { name: 'an unknown API key', headers: { ...JSON_TYPE, authorization: 'Bearer sgw_not-a-key' }, body: query('{ secretGreeting { response } }'), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'a Basic authorization', headers: { ...JSON_TYPE, authorization: 'Basic dXNlcjpwYXNz' }, body: query('{ secretGreeting { response } }'), status: 401, code: 'UNAUTHENTICATED' },
  { name: 'no identity at all', headers: JSON_TYPE, body: query('{ getStatements { errors } }'), status: 401, code: 'UNAUTHENTICATED' },
  // The drop-in front
  { name: 'front: malformed JSON', path: '/v2/graphql', headers: DROP_IN, body: '{"query":', status: 400, upstreamBody: UPSTREAM_BAD_JSON },
  { name: 'front: malformed JSON without a credential', path: '/v2/graphql', headers: JSON_TYPE, body: '{"query":', status: 400, upstreamBody: UPSTREAM_BAD_JSON },
  { name: 'front: a malformed JSON sign-in', path: '/v2/auth/sign_in', headers: JSON_TYPE, body: '{"email":', status: 400, upstreamBody: UPSTREAM_BAD_JSON },
  { name: 'front: text/plain', path: '/v2/graphql', headers: { ...DROP_IN, 'content-type': 'text/plain' }, body: '{}', status: 200, upstreamBody: '{"errors":[{"message":"No query string was present"}]}' },
  { name: 'front: a 25-level fragment bomb without a credential', path: '/v2/graphql', headers: JSON_TYPE, body: query(FRAGMENT_BOMB), status: 400, code: 'QUERY_TOO_COMPLEX' },
  { name: 'front: a mutation of 600 statements selecting pdf', path: '/v2/graphql', headers: JSON_TYPE, body: query(UPDATE_PDFS, { s: COPIES }), status: 400, code: 'QUERY_TOO_COMPLEX', message: /600 PDFs/ },
  { name: 'front: a mutation of 600 statements selecting pdf, by its variable\'s default', path: '/v2/graphql', headers: JSON_TYPE, body: query(UPDATE_PDFS_BY_DEFAULT), status: 400, code: 'QUERY_TOO_COMPLEX', message: /600 PDFs/ },
  { name: 'front: 200 aliased confirmRegistration in one request', path: '/v2/graphql', headers: JSON_TYPE, body: query(CONFIRMATIONS), status: 429, code: 'RATE_LIMITED' },
  { name: 'front: 500 aliases', path: '/v2/graphql', headers: DROP_IN, body: query(`{ ${repeat('a#: secretGreeting { response }', 500)} }`), status: 400, code: 'QUERY_TOO_COMPLEX' },
  // The front's body limit is the upstream's (20 MiB), and so is its 413.
  { name: 'front: a 21 MiB body', path: '/v2/graphql', headers: DROP_IN, body: query(`{ __typename ${' '.repeat(21 * 1024 * 1024)} }`), status: 413, upstreamBody: UPSTREAM_TOO_LARGE },
  { name: 'front: a chunked 21 MiB body', path: '/v2/graphql', headers: DROP_IN, chunked: true, body: query(`{ __typename ${' '.repeat(21 * 1024 * 1024)} }`), status: 413, upstreamBody: UPSTREAM_TOO_LARGE },
  { name: 'front: GET', path: '/v2/graphql', method: 'GET', status: 404, upstreamBody: UPSTREAM_NOT_FOUND },
  { name: 'front: sign-in over GET', path: '/v2/auth/sign_in', method: 'GET', status: 404, upstreamBody: UPSTREAM_NOT_FOUND },
  { name: 'front: a 2 MB sign-in', path: '/v2/auth/sign_in', headers: JSON_TYPE, body: { json: { email: 'a@example.com', password: 'p'.repeat(2_000_000) } }, status: 413, upstreamBody: UPSTREAM_TOO_LARGE },
  { name: 'front: sign-out over POST', path: '/v2/auth/sign_out', headers: JSON_TYPE, body: '{}', status: 404, upstreamBody: UPSTREAM_NOT_FOUND },
  // Elsewhere
  { name: 'an unknown path', path: '/admin', status: 404, code: 'BAD_REQUEST' },
];

/** A body of unknown length: fetch sends it chunked. */
function streamOf(bytes: Buffer, size = 64 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + size)));
      offset += size;
    },
  });
}

type ErrorBody = { errors?: { extensions?: { code?: string } }[] };
const codesIn = (text: string) => ((JSON.parse(text) as ErrorBody).errors ?? []).map((error) => error.extensions?.code);

/** What must never appear in an answer. */
function leaks(text: string, upstreamUrls: string[]): string[] {
  const found: string[] = [];
  if (/\bat \S+ \(|\bat (?:async )?\S+:\d+:\d+/.test(text)) found.push('a stack trace');
  if (/\/work\/|node_modules|\.ts:\d+/.test(text)) found.push('a file path');
  for (const url of upstreamUrls) if (text.includes(url.replace(/^https?:\/\//, ''))) found.push('an upstream URL');
  if (/ioredis|ECONNREFUSED|Redis/i.test(text)) found.push('a Redis message');
  return found;
}

describe('bad requests', () => {
  // The anonymous limit under 200, so that 200 aliased root fields are refused as in
  // test/drop-in/front-limits.test.ts; the table's requests come from an address of this run's own
  // (within TRUST_PROXY), so that no other test's anonymous requests count against it.
  const { sandbox, production, gateway } = useGatewayOnEmulators({ RATE_LIMIT_ANONYMOUS: '150/1m', TRUST_PROXY: '1' });
  const address = { 'x-forwarded-for': `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1::1` };
  // The slow client of the last test drips from the start, beside the other tests (it waits on
  // the 10 s headers deadline and touches nothing they use): about 10 s less for the file.
  const head = `POST /graphql HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nX-Padding: ${'x'.repeat(100)}\r\n`;
  let dripped: ReturnType<typeof dripUntilClosed> | undefined;
  beforeAll(() => {
    dripped = dripUntilClosed(gateway.current.url, head, 1_000, 45_000);
  });

  it(`answers each of ${CASES.length} bad requests with the contract's code, nothing of the gateway's insides, and keeps working`, async () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const front = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify({ email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password }) });
    expect(front.status).toBe(200);
    const failures: string[] = [];
    for (const bad of CASES) {
      const headers: Record<string, string> = { ...address, ...(bad.headers ?? {}) };
      if (headers['access-token'] === VERIFIED) Object.assign(headers, { 'access-token': front.headers.get('access-token'), client: front.headers.get('client') });
      if (bad.session && browser.cookie) headers.cookie = browser.cookie;
      const bytes = bad.body === undefined ? undefined : typeof bad.body === 'string' ? bad.body : Buffer.isBuffer(bad.body) ? new Uint8Array(bad.body) : JSON.stringify(bad.body.json);
      const body = bad.chunked && bytes !== undefined ? streamOf(Buffer.from(bytes)) : bytes;
      const response = await fetch(`${gateway.current.url}${bad.path ?? '/graphql'}`, { method: bad.method ?? 'POST', headers, ...(body !== undefined ? { body, duplex: 'half' } : {}) });
      const text = await response.text();
      if (bad.upstreamBody !== undefined) {
        if (response.status !== bad.status || text !== bad.upstreamBody) failures.push(`${bad.name}: ${response.status} ${text.slice(0, 80)}, expected the upstream's answer`);
        continue;
      }
      let codes: string[] = [];
      let messages: string[] = [];
      try {
        const parsed = JSON.parse(text) as { errors?: { message?: string; extensions?: { code?: string } }[] };
        codes = (parsed.errors ?? []).map((error) => error.extensions?.code ?? '?');
        messages = (parsed.errors ?? []).map((error) => error.message ?? '');
      } catch {
        failures.push(`${bad.name}: not JSON: ${text.slice(0, 80)}`);
        continue;
      }
      if (response.status !== bad.status) failures.push(`${bad.name}: status ${response.status}, expected ${bad.status}`);
      if (bad.code && !codes.includes(bad.code)) failures.push(`${bad.name}: codes ${codes.join() || 'none'}, expected ${bad.code}`);
      if (bad.message && !messages.some((message) => bad.message?.test(message))) failures.push(`${bad.name}: messages ${messages.join(' | ')}, expected ${String(bad.message)}`);
      for (const leak of leaks(text, [sandbox.url, production.url])) failures.push(`${bad.name}: ${leak}`);
    }
    expect(failures).toEqual([]);
    expect((await browser.graphql('{ secretGreeting { response } }')).body.data?.secretGreeting.response).toContain(DEMO_ACCOUNT.email);
  });

  it('accepts a small chunked body: a login through node:http without a length, sent in three pieces', async () => {
    const body = JSON.stringify({ query: LOGIN, variables: { e: DEMO_ACCOUNT.email, p: DEMO_ACCOUNT.password } });
    const answer = await new Promise<{ status: number; text: string; chunkedRequest: boolean }>((resolve, reject) => {
      const request = httpRequest(`${gateway.current.url}/graphql`, { method: 'POST', headers: CSRF }, (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text, chunkedRequest: (request as unknown as { chunkedEncoding: boolean }).chunkedEncoding }));
      });
      request.on('error', reject);
      const third = Math.ceil(body.length / 3);
      request.write(body.slice(0, third));
      setTimeout(() => {
        request.write(body.slice(third, 2 * third));
        setTimeout(() => request.end(body.slice(2 * third)), 20);
      }, 20);
    });
    expect(answer.chunkedRequest).toBe(true);
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.text) as { data: { login: { uid: string } } }).data.login.uid).toBe(DEMO_ACCOUNT.email);
  });

  it('answers a chunked body over the limit with a 413 JSON error that a client reading only after sending gets', async () => {
    const body = Buffer.from(JSON.stringify({ query: `{ __typename ${' '.repeat(4_000_000)} }` }));
    const host = new URL(gateway.current.url).host;
    const answer = await sendThenRead(gateway.current.url, `POST /graphql HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`, chunked(body));
    expect(answer.error).toBeUndefined();
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(codesIn(answer.body)).toEqual(['PAYLOAD_TOO_LARGE']);
  });

  it('answers a 2 MB Content-Length body with a 413 JSON error that a client reading only after sending gets (no reset)', async () => {
    const body = Buffer.from(JSON.stringify({ query: `{ __typename ${' '.repeat(2_000_000)} }` }));
    const host = new URL(gateway.current.url).host;
    for (let attempt = 0; attempt < 3; attempt++) {
      const head = `POST /graphql HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}`;
      const answer = await sendThenRead(gateway.current.url, head, [body.subarray(0, 65_536), body.subarray(65_536)]);
      expect(answer.error).toBeUndefined();
      expect(answer.status).toBe(413);
      expect(codesIn(answer.body)).toEqual(['PAYLOAD_TOO_LARGE']);
    }
  });

  it('still admits what real clients send: 300 statements in one add, the full statementDefinitions selection, the tutorial documents', async () => {
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const statements = Array.from({ length: 300 }, (_, index) => ({ ...VALID_NEC, uploaderId: `bulk-${index}` }));
    const added = await browser.graphql('mutation($s: [F1099necInput!]!) { addF1099necStatements(statements: $s) { errors statements { recordNumber } } }', { s: statements });
    expect(added.body.errors ?? []).toEqual([]);
    expect(added.body.data?.addF1099necStatements.statements).toHaveLength(300);
    // Forty statements written inline, as the upstream tutorial writes them.
    const inline = statements.slice(0, 40).map((statement, index) =>
      `{ ${Object.entries({ ...statement, uploaderId: `inline-${index}` }).map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(' ')} }`).join(' ');
    const inlined = await browser.graphql(`mutation { addF1099necStatements(statements: [${inline}]) { errors } }`);
    expect(inlined.body.errors ?? []).toEqual([]);
    const definitions = await browser.graphql(`{ statementDefinitions { errors definitions { identifier name title description recipientName senderName
      blankForm fields { identifier arrayType boxLabel boxNumber dataType description fixedArrayLength frequentUse maxArrayLength maxStringLength sampleValue sortOrder yearsUsed } } } }`);
    expect(definitions.codes).toEqual([]);
  });

  it('closes a connection that sends its headers one byte a second within a few seconds of the 10 s headers deadline (regression: it stayed open about 38 s)', async () => {
    if (!dripped) throw new Error('the slow client did not start');
    const { openMs, statusLine, gaveUp } = await dripped;
    expect(gaveUp).toBe(false);
    expect(openMs).toBeGreaterThanOrEqual(9_500);
    expect(openMs).toBeLessThan(13_000);
    expect(statusLine).toBe('HTTP/1.1 408 Request Timeout');
  }, 50_000);
});

