/**
 * What a request reaches is decided by its request target alone (src/request/request-target.ts,
 * checked at the edge, src/http/edge.ts), seen from outside at the raw HTTP level: fetch and
 * node:http resolve `..` segments or refuse odd Host headers before sending, so these requests are
 * written byte for byte.
 */
import { describe, expect, it } from 'vitest';
import { useGatewayOnEmulators } from '../support/gateway';
import { rawRequest, type RawAnswer } from '../support/raw-http';

/** One path of each of the gateway's endpoints. */
const ENDPOINTS = ['/graphql', '/v2/graphql', '/production/v2/auth/sign_in', '/statements/fw2-1/pdf', '/metrics', '/ops/', '/ops/data', '/healthcheck', '/readiness'];

/** Each way of writing a path that two readers could read as two different paths. */
const DISGUISES: readonly [string, (path: string) => string][] = [
  ['a `.` segment', (path) => `/.${path}`],
  ['a `..` segment', (path) => `/x/..${path}`],
  ['a trailing `..`', (path) => `${path}/x/..`],
  ['`%2e` (lower case)', (path) => `/%2e${path}`],
  ['`%2E%2E` (upper case)', (path) => `/x/%2E%2E${path}`],
  ['a mixed `.%2e`', (path) => `/x/.%2e${path}`],
  ['an encoded slash `%2F`', (path) => `/x%2F..${path}`],
  ['an encoded slash `%2f`', (path) => `${path}%2fx`],
  ['an encoded backslash `%5C`', (path) => `/x%5C..${path}`],
  ['an encoded backslash `%5c`', (path) => `${path}%5c`],
  ['a raw backslash', (path) => `/x\\..${path}`],
  ['an empty segment', (path) => `/${path}`],
  ['an empty segment inside', (path) => `${path}//x`],
];

const codeOf = (answer: RawAnswer) => (JSON.parse(answer.body) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code;

/** The gateway's JSON 400 (errors/error-response.ts), with its message and nothing of a stack. */
function expectRefused(answer: RawAnswer, label: string): void {
  expect([answer.status, answer.headers['content-type']], label).toEqual([400, 'application/json; charset=utf-8']);
  expect(codeOf(answer), label).toBe('BAD_REQUEST');
  expect(answer.body, label).not.toMatch(/\bat \S+:\d+|statement_gateway_|# HELP/);
  expect(answer.headers['x-request-id'], label).toBeDefined();
}

describe('the request target', () => {
  const { gateway } = useGatewayOnEmulators();
  const host = () => `Host: ${new URL(gateway.current.url).host}`;
  const get = (target: string, headers: readonly string[] = [host()], version = '1.1') => rawRequest(gateway.current.url, `GET ${target} HTTP/${version}`, headers);

  it('serves each endpoint\'s own path as written (the paths below are served, not 404)', async () => {
    for (const path of ['/healthcheck', '/metrics', '/ops/data']) expect((await get(path)).status, path).toBe(200);
  });

  describe.each(DISGUISES)('a path with %s', (_label, disguise) => {
    it('is refused with a JSON 400 before any routing, on every endpoint', async () => {
      for (const path of ENDPOINTS) {
        const target = disguise(path);
        for (const method of ['GET', 'POST']) {
          const answer = await rawRequest(gateway.current.url, `${method} ${target} HTTP/1.1`, [host(), 'Content-Type: application/json'], method === 'POST' ? '{"query":"{ __typename }"}' : undefined);
          expectRefused(answer, `${method} ${target}`);
        }
      }
    });
  });

  it('keeps serving a trailing slash and a query holding what a path may not (`%2F`, `..`, `//`)', async () => {
    expect((await get('/graphql/')).status).toBe(308);
    const answer = await get(`/graphql?query=${encodeURIComponent('{ __typename }')}&x=%2F..//%5C`, [host(), 'Accept: application/json']);
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { data: { __typename: 'Query' } }]);
  });
});

describe('the Host header', () => {
  const { gateway } = useGatewayOnEmulators();
  const url = () => gateway.current.url;

  // Regression: whatwg-node builds the URL from Host + target, so `x\metrics?` made the URL
  // `http://x\metrics?/graphql`, whose path is /metrics: the Prometheus text answered.
  it('never selects the path: `GET /graphql` with `Host: x\\metrics?` is 400, not the metrics', async () => {
    const answer = await rawRequest(url(), 'GET /graphql HTTP/1.1', ['Host: x\\metrics?', 'Accept: application/json']);
    expect(answer.body).not.toContain('# HELP');
    expectRefused(answer, 'x\\metrics?');
  });

  it.each([
    'x/metrics?', 'x/metrics#', 'x?', 'x#y', 'user@x', 'x:port', 'x:80:80', 'x:123456', 'x:99999', '1.2.3.256', '[::1', '[v1.x]', 'x y', '', 'x\\', 'a%2fb',
  ])('refuses `Host: %s` with 400', async (value) => {
    expectRefused(await rawRequest(url(), 'GET /metrics HTTP/1.1', [`Host: ${value}`]), value);
  });

  it('refuses two Host headers with 400 (a proxy may read the other one)', async () => {
    expectRefused(await rawRequest(url(), 'GET /healthcheck HTTP/1.1', ['Host: a.example', 'Host: b.example']), 'two');
  });

  it.each(['gateway.example', 'gateway.example:8443', '127.0.0.1:4000', '[::1]:4000', '[2001:db8::1]', 'sub_domain.example.'])('serves the target whatever a valid `Host: %s` says', async (value) => {
    const answer = await rawRequest(url(), 'GET /healthcheck HTTP/1.1', [`Host: ${value}`]);
    expect(answer.status, value).toBe(200);
  });

  it('serves an HTTP/1.0 request without Host by its target alone', async () => {
    expect((await rawRequest(url(), 'GET /healthcheck HTTP/1.0', [])).status).toBe(200);
    expect((await rawRequest(url(), 'GET /nowhere HTTP/1.0', [])).status).toBe(404);
  });

  it('refuses an absolute-form target (a request for a forward proxy) with 400, whatever it names', async () => {
    for (const target of ['http://evil/metrics', `${url()}/metrics`, 'https://evil/graphql']) {
      const answer = await rawRequest(url(), `GET ${target} HTTP/1.1`, [`Host: ${new URL(url()).host}`]);
      expect(answer.body, target).not.toContain('# HELP');
      expectRefused(answer, target);
    }
  });

  it('refuses the asterisk form (`OPTIONS *`) with 400', async () => {
    expectRefused(await rawRequest(url(), 'OPTIONS * HTTP/1.1', [`Host: ${new URL(url()).host}`]), '*');
  });
});
