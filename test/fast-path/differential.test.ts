/**
 * The fast path cannot be told apart from Mesh's execution: the same requests, sent to a gateway
 * with FAST_PATH=false and to one with the fast path, over the same emulator and account, get the
 * same status and the same body, for reads, writes, variables, fragments, aliases, operation names,
 * refused variables, the upstream's own errors and payload errors, and each kind of upstream
 * failure (5xx, 4xx with HTML, timeouts, a revoked token). The metrics show which path ran.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { countOperation, takeUpstreamRequests } from '../support/cache';
import { Browser, useGateway, type GraphqlAnswer } from '../support/gateway';
import { scrape } from '../support/metrics';
import { ADD_NEC, UPDATE_NEC, VALID_NEC } from '../support/statements';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const env = (fastPath: boolean) => () => ({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, UPSTREAM_TIMEOUT_MS: '600', FAST_PATH: String(fastPath) });
const mesh = useGateway(env(false));
const fast = useGateway(env(true));

let meshBrowser: Browser;
let fastBrowser: Browser;
beforeAll(async () => {
  await Promise.all([mesh.start(), fast.start()]);
});
// After the emulator's reset (useEmulator), a fresh session on each gateway.
beforeEach(async () => {
  meshBrowser = new Browser(mesh.current.url);
  fastBrowser = new Browser(fast.current.url);
  for (const browser of [meshBrowser, fastBrowser]) expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
});
afterEach(async () => {
  await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null, hangMs: 0, latencyMs: 0 });
});

/** What a client can see of an answer: status, content type, cache headers and body. */
function visible(answer: GraphqlAnswer<unknown>) {
  return {
    status: answer.status,
    contentType: answer.headers.get('content-type'),
    cacheControl: answer.headers.get('cache-control'),
    retryAfter: answer.headers.get('retry-after'),
    body: answer.body,
  };
}

type Side = 'mesh' | 'fast';
type Variables = Record<string, unknown> | ((side: Side) => Record<string, unknown>);

/**
 * Ids the emulator makes up for new statements differ between the two runs, and writes name
 * their side in uploader ids (both gateways act for the same account).
 */
function withoutNewIds(value: unknown, side: Side): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll(`-${side}`, '-<side>'), (key, item: unknown) => (key === 'otxId' && typeof item === 'string' ? '<otxId>' : item));
}

async function expectSame(query: string, variables?: Variables, operationName?: string) {
  const send = (browser: Browser, side: Side) => browser.graphql(query, typeof variables === 'function' ? variables(side) : variables, operationName ? { operationName } : {});
  const viaMesh = await send(meshBrowser, 'mesh');
  const viaFast = await send(fastBrowser, 'fast');
  expect(withoutNewIds(visible(viaFast), 'fast')).toEqual(withoutNewIds(visible(viaMesh), 'mesh'));
  return viaFast;
}

/** [name, document, variables, operation name, whether the fast path sends it upstream] */
const READS: [string, string, Record<string, unknown> | undefined, string | undefined, boolean][] = [
  ['one field', '{ secretGreeting { response } }', undefined, undefined, true],
  ['aliases and __typename', '{ __typename a: secretGreeting { response __typename } b: secretGreeting { r: response } }', undefined, undefined, true],
  ['fragments', 'query Q { ...G } fragment G on Query { secretGreeting { ...R } } fragment R on SecretGreetingPayload { response }', undefined, undefined, true],
  ['variables and directives', 'query($first: Int, $skip: Boolean!) { getStatements(first: $first) { errors statements { pageInfo @skip(if: $skip) { hasNextPage endCursor } nodes { uploaderId } } } }', { first: 2, skip: false }, undefined, true],
  ['two root fields', '{ secretGreeting { response } getFw2Statements { errors statements { nodes { otxId } } } }', undefined, undefined, true],
  ['an operation picked by name', 'query A { secretGreeting { response } } query B { getStatements(first: 1) { errors } }', {}, 'B', true],
  ['beside a gateway operation it does not run', 'query A { secretGreeting { response } } mutation B { login(email: "a@example.com", password: "not-sent-upstream") { uid } }', {}, 'A', true],
  ['undeclared variables', '{ secretGreeting { response } }', { extra: 'x' }, undefined, true],
  ['a refused variable', 'query($first: Int) { getStatements(first: $first) { errors } }', { first: 'many' }, undefined, false],
  ['a missing required variable', 'query($skip: Boolean!) { secretGreeting @skip(if: $skip) { response } }', undefined, undefined, false],
  ['the upstream refuses an argument', '{ getStatements(first: -1) { errors statements { pageInfo { hasNextPage } } } }', undefined, undefined, true],
  ['the upstream refuses a cursor', '{ getStatements(first: 1, after: "nope") { errors statements { pageInfo { hasNextPage } } } }', undefined, undefined, true],
  ['a partial answer', '{ secretGreeting { response } getStatements(after: "nope") { errors } }', undefined, undefined, true],
  ['a gateway field beside an upstream one (Mesh runs it)', '{ session { uid } secretGreeting { response } }', undefined, undefined, false],
  ['definitions (the gateway answers them)', '{ statementDefinitions { errors } }', undefined, undefined, false],
  ['a PDF (the PDF cache runs it)', '{ getStatements(first: 1) { statements { nodes { pdf } } } }', undefined, undefined, false],
  ['introspection', '{ __schema { queryType { name } } }', undefined, undefined, false],
];

async function forwardedQueries(url: string): Promise<number> {
  return (await scrape(url)).sum('statement_gateway_forwarded_operations_total', { kind: 'query' });
}

describe('the fast path answers as Mesh does', () => {
  it.each(READS)('reads: %s', async (_name, query, variables, operationName, forwarded) => {
    const before = await forwardedQueries(fast.current.url);
    const answer = await expectSame(query, variables, operationName);
    if (forwarded) expect(answer.codes).not.toContain('GRAPHQL_VALIDATION_FAILED');
    expect(await forwardedQueries(fast.current.url)).toBe(before + (forwarded ? 1 : 0));
    expect(await forwardedQueries(mesh.current.url)).toBe(0);
  });

  it('writes: payload errors, a new statement, an update of nothing', async () => {
    await expectSame(ADD_NEC, (side) => ({ s: [{ ...VALID_NEC, uploaderId: `bad-${side}`, recipientTin: 'x' }] }));
    const added = await expectSame(ADD_NEC, (side) => ({ s: [{ ...VALID_NEC, uploaderId: `good-${side}` }] }));
    expect(added.codes).toEqual([]);
    await expectSame(UPDATE_NEC, { s: [{ otxId: 'no-such-statement', nonemployeeComp: '1.00' }] });
    await expectSame('mutation { deleteStatements(otxIds: ["no-such-statement"]) { errors deleteCount } }');
  });

  it.each([
    ['the upstream answers 500', { failStatus: 500 }],
    ['the upstream answers 502', { failStatus: 502 }],
    ['the upstream answers 404 with HTML', { failStatus: 404 }],
    ['the upstream answers 400 with HTML', { failStatus: 400 }],
    ['the upstream answers 200 with HTML', { failStatus: 200 }],
    ['the upstream answers 429', { failStatus: 429 }],
    ['the upstream hangs past the timeout', { hangMs: 2_000 }],
  ])('failures: %s', async (_name, settings) => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', settings);
    await expectSame('{ secretGreeting { response } }');
    await expectSame('{ a: secretGreeting { response } getFw2Statements { errors } }');
    await expectSame(ADD_NEC, (side) => ({ s: [{ ...VALID_NEC, uploaderId: `failed-${side}` }] }));
    await expectSame('query($s: Boolean!) { a: secretGreeting @skip(if: $s) { response } b: secretGreeting @include(if: true) { response } }', { s: true });
  });

  // Here the paths differ, for the better: Mesh's executor lets the call run until its timeout.
  it('a client that goes away aborts its upstream call on the fast path', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { hangMs: 3_000 });
    const timeouts = async (url: string) => (await scrape(url)).sum('statement_gateway_upstream_request_duration_seconds_count', { environment: 'sandbox', operation: 'secretGreeting', outcome: 'timeout' });
    const before = await timeouts(fast.current.url);
    const left = await fastBrowser.graphql('{ secretGreeting { response } }', undefined, { signal: AbortSignal.timeout(150) }).catch(() => 'aborted');
    expect(left).toBe('aborted');
    // Past UPSTREAM_TIMEOUT_MS (600 ms): a call still running would have timed out by now.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await timeouts(fast.current.url)).toBe(before);
    // The upstream did answer a later request normally (the call was aborted, not the session).
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { hangMs: 0 });
    expect((await fastBrowser.graphql('{ secretGreeting { response } }')).codes).toEqual([]);
  });

  it("shares one upstream call between one identity's identical queries, and one leaving does not abort the other's", async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 300 });
    await takeUpstreamRequests(sandbox.url);
    const query = '{ secretGreeting { response } }';
    // Its own Browser with the same cookie: a request that leaves, beside one that stays.
    const leaving = Object.assign(new Browser(fastBrowser.gatewayUrl), { cookie: fastBrowser.cookie });
    const [left, staying] = await Promise.all([leaving.graphql(query, undefined, { signal: AbortSignal.timeout(100) }).catch(() => 'aborted'), fastBrowser.graphql(query)]);
    expect(left).toBe('aborted');
    expect(staying.codes).toEqual([]);
    expect(staying.body.data).toEqual({ secretGreeting: { response: expect.any(String) } });
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'secretGreeting')).toBe(1);
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 0 });
  });

  it('a revoked upstream token ends both sessions the same way', async () => {
    // A reset forgets every token: the next call of each session gets the upstream's 401.
    await control(sandbox.url, 'POST', '/__emulator/reset');
    const meshAnswer = await meshBrowser.graphql('{ secretGreeting { response } }');
    const fastAnswer = await fastBrowser.graphql('{ secretGreeting { response } }');
    expect(visible(fastAnswer)).toEqual(visible(meshAnswer));
    expect(fastAnswer.codes).toEqual(['UNAUTHENTICATED']);
    expect(fastBrowser.lastSetCookie).toEqual(meshBrowser.lastSetCookie);
    expect(fastBrowser.lastSetCookie).toHaveLength(1);
  });
});
