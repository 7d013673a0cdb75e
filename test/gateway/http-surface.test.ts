/**
 * The HTTP surface in production mode: paths, methods, content types, CORS, introspection, the
 * codes of request and upstream errors, and the headers every answer carries.
 */
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useGraphiQLPage } from '../../src/ops/graphiql/use-graphiql-page';
import { DEMO_ACCOUNT, signIn } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGatewayOnEmulators, type TestGateway } from '../support/gateway';

// The emulators and the test Redis are plain http:// and redis:// on loopback.
const { sandbox, production, gateway } = useGatewayOnEmulators({ ALLOWED_ORIGINS: 'https://app.example.com', NODE_ENV: 'production', ALLOW_INSECURE_TRANSPORT: 'true' });

async function raw(path: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: { errors?: { message: string; extensions?: { code?: string } }[] } }> {
  const response = await fetch(`${gateway.current.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as { errors?: { message: string; extensions?: { code?: string } }[] }) : {} };
}

const codes = (body: { errors?: { extensions?: { code?: string } }[] }) => (body.errors ?? []).map((error) => error.extensions?.code);

async function signedIn(): Promise<Browser> {
  const browser = new Browser(gateway.current.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  return browser;
}

describe('paths, methods and content types', () => {
  it('answers 404 with a JSON error on any path but /graphql and the drop-in front', async () => {
    for (const path of ['/v3/graphql', '/x/graphql', '/graphql/x', '/v2/auth/other', '/nothing']) {
      const answer = await raw(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
      expect(answer.status).toBe(404);
      expect(codes(answer.body)).toEqual(['BAD_REQUEST']);
    }
  });

  it('answers 415 with a JSON error to a body that is not JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      const answer = await raw('/graphql', { method: 'POST', headers: type ? { 'content-type': type } : {}, body: 'query={__typename}' });
      expect(answer.status).toBe(415);
      expect(codes(answer.body)).toEqual(['BAD_REQUEST']);
    }
  });

  it('answers 405 to other methods', async () => {
    const answer = await raw('/graphql', { method: 'DELETE' });
    expect(answer.status).toBe(405);
    expect(codes(answer.body)).toEqual(['BAD_REQUEST']);
  });

  it('gives BAD_REQUEST, GRAPHQL_PARSE_FAILED and GRAPHQL_VALIDATION_FAILED (once) with status 400', async () => {
    const post = (body: string) => raw('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf': '1' }, body });
    const malformed = await post('{"query": ');
    expect([malformed.status, codes(malformed.body)]).toEqual([400, ['BAD_REQUEST']]);
    const parse = await post(JSON.stringify({ query: '{ session { uid ' }));
    expect([parse.status, codes(parse.body)]).toEqual([400, ['GRAPHQL_PARSE_FAILED']]);
    const unknown = await post(JSON.stringify({ query: '{ session { nope } }' }));
    expect([unknown.status, codes(unknown.body)]).toEqual([400, ['GRAPHQL_VALIDATION_FAILED']]);
    const variables = await post(JSON.stringify({ query: 'mutation($e: String!) { login(email: $e, password: "x") { uid } }', variables: { e: 5 } }));
    expect([variables.status, codes(variables.body)]).toEqual([400, ['GRAPHQL_VALIDATION_FAILED']]);
  });
});

describe('errors from the upstream', () => {
  it('gives UPSTREAM_ERROR with status 502 for a top-level error in the upstream\'s answer', async () => {
    const browser = await signedIn();
    const answer = await browser.graphql('{ getStatements(first: -5) { errors statements { nodes { otxId } } } }');
    expect(answer.codes).toEqual(['UPSTREAM_ERROR']);
    expect(answer.status).toBe(502);
    expect(JSON.stringify(answer.body)).not.toMatch(/127\.0\.0\.1|https?:\/\//);
  });
});

describe('CORS', () => {
  const preflight = (origin: string) => fetch(`${gateway.current.url}/graphql`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-csrf' },
  });

  it('grants preflights with credentials to ALLOWED_ORIGINS only', async () => {
    const allowed = await preflight('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('x-csrf');
    const foreign = await preflight('https://evil.example.net');
    // The answer depends on the Origin: caches must keep one per origin.
    for (const answer of [allowed, foreign]) expect(answer.headers.get('vary')).toMatch(/\bOrigin\b/i);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lets allowed origins send X-Request-Id, trace, Cache-Control and Idempotency-Key headers, and read Retry-After, X-Request-Id, Age and Idempotent-Replayed', async () => {
    const allowed = await fetch(`${gateway.current.url}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-csrf, x-request-id, traceparent' },
    });
    for (const header of ['x-request-id', 'traceparent', 'tracestate', 'baggage', 'cache-control', 'idempotency-key']) expect(allowed.headers.get('access-control-allow-headers')).toContain(header);
    const answer = await fetch(`${gateway.current.url}/graphql`, { method: 'POST', headers: { origin: 'https://app.example.com', 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    const exposed = (answer.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed.sort()).toEqual(['age', 'idempotent-replayed', 'retry-after', 'x-request-id']);
    expect(answer.headers.get('vary')).toMatch(/\bOrigin\b/i);
  });

  it('sends no CORS header outside /graphql, even to an allowed origin: not on /ops/, /metrics, /readiness or the drop-in front (regression)', async () => {
    const origin = 'https://app.example.com';
    const paths = ['/ops/data', '/ops/', '/metrics', '/readiness', '/healthcheck', '/v2/graphql', '/sandbox/v2/graphql', '/production/v2/graphql', '/v2/auth/sign_in', '/statements/x/pdf', '/graphql/x'];
    for (const path of paths) {
      const answers = [
        await fetch(`${gateway.current.url}${path}`, { headers: { origin } }),
        await fetch(`${gateway.current.url}${path}`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' }),
        await fetch(`${gateway.current.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } }),
      ];
      for (const answer of answers) {
        await answer.arrayBuffer();
        const cors = [...answer.headers.keys()].filter((name) => name.startsWith('access-control-'));
        expect(cors, `${path} ${answer.status}`).toEqual([]);
      }
    }
  });
});

describe('introspection and GraphiQL in production', () => {
  it('refuses introspection, even for a session (GRAPHQL_INTROSPECTION is off by default in production)', async () => {
    const anonymous = await new Browser(gateway.current.url).graphql('{ __schema { queryType { name } } }', undefined, { csrf: false });
    expect([...new Set(anonymous.codes)]).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    const browser = await signedIn();
    const answer = await browser.graphql('{ __type(name: "Query") { name } }');
    expect([...new Set(answer.codes)]).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(answer.body.data ?? null).toBeNull();
  });

  it('does not serve GraphiQL', async () => {
    const response = await fetch(`${gateway.current.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await response.text()).not.toContain('GraphiQL');
  });

  it('does not serve GraphiQL\'s assets either (404, as any unknown path)', async () => {
    // The asset paths a development gateway links to, from the same plugin in process.
    const page = await createYoga({ plugins: [useGraphiQLPage()], graphiql: false }).fetch('http://dev.test/graphql', { headers: { accept: 'text/html' } });
    const assets = [...(await page.text()).matchAll(/(?:href|src)="(graphiql\/[^"]+)"/g)].map((match) => `/${match[1] ?? ''}`);
    expect(assets).toHaveLength(3);
    for (const asset of assets) expect((await fetch(`${gateway.current.url}${asset}`)).status, asset).toBe(404);
  });
});

const JSON_TYPE = { 'content-type': 'application/json' };
const TYPENAME = JSON.stringify({ query: '{ __typename }' });
const TOO_LARGE = JSON.stringify({ query: `{ __typename ${' '.repeat(2_000_000)} }` });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** One request of each kind the gateway answers: its own routes, errors and the drop-in front. */
function everyKindOfAnswer(base: string, headers: Record<string, string> = {}): [string, () => Promise<Response>][] {
  const post = (path: string, body: string, extra: Record<string, string> = {}) => () => fetch(`${base}${path}`, { method: 'POST', headers: { ...JSON_TYPE, ...headers, ...extra }, body });
  const get = (path: string) => () => fetch(`${base}${path}`, { headers });
  return [
    ['GraphQL', post('/graphql', TYPENAME)],
    ['a GraphQL error', post('/graphql', '{"query":')],
    ['/healthcheck', get('/healthcheck')],
    ['/readiness', get('/readiness')],
    ['/metrics', get('/metrics')],
    ['/ops/', get('/ops/')],
    ['a 404', post('/nothing', TYPENAME)],
    ['a 415', () => fetch(`${base}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body: TYPENAME })],
    ['a 413', post('/graphql', TOO_LARGE)],
    ['a preflight', () => fetch(`${base}/graphql`, { method: 'OPTIONS', headers: { ...headers, origin: 'https://app.example.com', 'access-control-request-method': 'POST' } })],
    ['the front\'s sign-in', post('/v2/auth/sign_in', JSON.stringify({ email: DEMO_ACCOUNT.email, password: 'not-the-password' }))],
    ['the front\'s GraphQL, refused upstream', post('/v2/graphql', TYPENAME, { 'access-token': 'forged', client: 'forged', uid: DEMO_ACCOUNT.email })],
  ];
}

describe('what every answer carries', () => {
  it('X-Content-Type-Options: nosniff, Strict-Transport-Security (COOKIE_SECURE) and its own X-Request-Id, on every kind of answer', async () => {
    const ids = new Set<string>();
    for (const [name, send] of everyKindOfAnswer(gateway.current.url)) {
      const response = await send();
      await response.arrayBuffer();
      expect(response.headers.get('x-content-type-options'), name).toBe('nosniff');
      expect(response.headers.get('strict-transport-security'), name).toBe('max-age=31536000; includeSubDomains');
      const id = response.headers.get('x-request-id') ?? '';
      expect(id, name).toMatch(UUID);
      ids.add(id);
    }
    expect(ids.size).toBe(everyKindOfAnswer('').length);
  });

  it('Cache-Control: no-store on every answer to a request with a cookie, a Bearer key or a drop-in credential', async () => {
    const browser = await signedIn();
    const credential = await signIn(sandbox.url);
    const identities: Record<string, Record<string, string>> = {
      cookie: { cookie: browser.cookie ?? '', 'x-csrf': '1' },
      'an unknown Bearer key': { authorization: 'Bearer sgw_not-a-key' },
      'a drop-in credential': { ...credential },
    };
    for (const [identity, headers] of Object.entries(identities)) {
      for (const [name, send] of everyKindOfAnswer(gateway.current.url, headers)) {
        const response = await send();
        await response.arrayBuffer();
        expect(response.headers.get('cache-control'), `${identity}: ${name}`).toBe('no-store');
      }
    }
    const front = await fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { ...JSON_TYPE, ...credential }, body: TYPENAME });
    expect(front.status).toBe(200);
    expect(front.headers.get('cache-control')).toBe('no-store');
  });
});

describe('without COOKIE_SECURE', () => {
  let plain: TestGateway | undefined;
  beforeAll(async () => {
    plain = await startTestGateway({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY, COOKIE_SECURE: 'false' });
  });
  afterAll(async () => {
    await plain?.stop();
  });

  it('sends no Strict-Transport-Security, and still nosniff and a request id', async () => {
    for (const [name, send] of everyKindOfAnswer(plain!.url)) {
      const response = await send();
      await response.arrayBuffer();
      expect(response.headers.get('strict-transport-security'), name).toBeNull();
      expect(response.headers.get('x-content-type-options'), name).toBe('nosniff');
      expect(response.headers.get('x-request-id'), name).toMatch(UUID);
    }
  });
});
