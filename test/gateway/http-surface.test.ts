/**
 * The HTTP surface in production mode: paths, methods, content types, CORS, introspection, and
 * the codes of request and upstream errors.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT } from '../helpers/emulator';
import { Browser, useGatewayOnEmulators } from '../helpers/gateway';

const { gateway } = useGatewayOnEmulators({ ALLOWED_ORIGINS: 'https://app.example.com', NODE_ENV: 'production' });

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
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(foreign.headers.get('access-control-allow-credentials')).toBeNull();
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
});
