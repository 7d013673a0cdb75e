/**
 * Tracing on the paths tracing.test.ts does not take, against the same real OTLP receiver: a
 * query text the hot path would answer (a traced gateway keeps it in the Yoga pipeline, whose
 * operation span it would lose), operations Mesh executes itself (a gateway field beside an
 * upstream one, a `pdf` selection: never the fast path), the definitions cache's background
 * refresh, and logout's upstream sign-out. Each upstream call is a CLIENT span of the request's
 * trace, and the upstream got that span in `traceparent`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT, seed, useEmulator } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, type TestGateway } from '../support/gateway';
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { callerContext, expectContinued, frontGreeting, spanIdOf, spansOf as spansIn, tracingEnv, upstreamRequestsOf } from '../support/tracing';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
let receiver: OtlpReceiver;
let gateway: TestGateway;
let browser: Browser;

/** Definitions go stale after a second: the next read is answered stale while they are refreshed. */
const DEFINITIONS_FRESH_MS = 1_000;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  gateway = await startTestGateway({
    UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    CACHE_DEFINITIONS_FRESH: `${DEFINITIONS_FRESH_MS}ms`,
    ...tracingEnv(receiver.url),
  });
});
// After the emulator's reset (useEmulator), which ends every upstream credential.
beforeEach(async () => {
  browser = new Browser(gateway.url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
});
afterAll(async () => {
  await gateway.stop();
  await receiver.close();
});

const spansOf = (traceId: string, more?: (spans: readonly ReceivedSpan[]) => boolean) => spansIn(receiver, traceId, more);
const clientsOf = (spans: readonly ReceivedSpan[]) => spans.filter((span) => span.kind === SPAN_KIND.client);
/** The only attributes a CLIENT span has: nothing of the URL's query, a header or a body. */
const CLIENT_ATTRIBUTES = ['http.request.method', 'http.response.status_code', 'server.address', 'server.port', 'statement_gateway.upstream.environment', 'statement_gateway.upstream.operation'];

/** Sends `query` with a fresh caller context: its trace's operation span and CLIENT spans. */
async function traced(query: string, variables?: Record<string, unknown>) {
  const caller = callerContext();
  const answer = await browser.graphql(query, variables, { headers: { traceparent: caller.traceparent } });
  expect(answer.codes, JSON.stringify(answer.body)).toEqual([]);
  const spans = await spansOf(caller.traceId);
  const server = spans.find((span) => span.kind === SPAN_KIND.server);
  const operation = spans.find((span) => span.attributes['graphql.operation.type'] !== undefined);
  return { caller, answer, spans, server, operation, clients: clientsOf(spans) };
}

describe('tracing, whichever path a request takes', () => {
  // Regression: the hot path (src/hot-path/hot-path.ts) answers a query text the pipeline has already
  // run without Yoga's plugins, so without its operation span; startGateway keeps it off with tracing.
  it('keeps a hot query text in the traced pipeline: its second request still has its SERVER, operation and CLIENT spans', async () => {
    const query = 'query HotGreeting { secretGreeting { response } }';
    for (const round of ['first', 'second (hot without tracing)']) {
      const { caller, server, operation, clients, spans } = await traced(query);
      expect(server?.parentSpanId, round).toBe(caller.spanId);
      expect(operation, round).toMatchObject({ name: 'query HotGreeting', parentSpanId: server?.spanId });
      expect(clients.map((span) => [span.name, span.parentSpanId]), round).toEqual([['POST secretGreeting', operation?.spanId]]);
      await expectContinued(spans, caller, sandbox.url);
    }
  });

  it('traces an operation Mesh executes (a gateway field beside an upstream one): its CLIENT span continues the trace upstream', async () => {
    const { caller, operation, clients, spans, answer } = await traced('query Mixed { secretGreeting { response } session { uid } }');
    expect(answer.body.data).toMatchObject({ secretGreeting: { response: expect.any(String) }, session: { uid: expect.any(String) } });
    expect(operation?.name).toBe('query Mixed');
    // Mesh's delegation names the call by its field, as the fast path names it by its first root field.
    expect(clients.map((span) => [span.name, span.parentSpanId])).toEqual([['POST secretGreeting', operation?.spanId]]);
    expect(Object.keys(clients[0]?.attributes ?? {}).sort()).toEqual(CLIENT_ATTRIBUTES);
    await expectContinued(spans, caller, sandbox.url);
  });

  it('traces an operation that selects `pdf` (Mesh and the PDF cache, never the fast path)', async () => {
    await seed(sandbox.url, DEMO_ACCOUNT.email, 'Fw2', 1, 'tracing-pdf-');
    const { caller, operation, clients, spans, answer } = await traced('query Pdfs { getFw2Statements { statements { nodes { otxId pdf } } } }');
    const nodes = (answer.body.data as { getFw2Statements: { statements: { nodes: { pdf: string | null }[] } } }).getFw2Statements.statements.nodes;
    expect(nodes.length).toBeGreaterThan(0);
    expect(clients.length).toBeGreaterThan(0);
    for (const client of clients) expect(client.parentSpanId, client.name).toBe(operation?.spanId);
    expect(clients.map((span) => span.attributes['statement_gateway.upstream.operation'])).toContain('getFw2Statements');
    await expectContinued(spans, caller, sandbox.url);
  });

  it('traces the definitions: the read that fetches them, and the background refresh of a stale copy, each a CLIENT span of its request\'s trace', async () => {
    const query = '{ statementDefinitions { definitions { identifier } } }';
    // The first read fetches them, inside its operation (a copy in Redis from another run is sealed
    // under another CREDENTIAL_KEY: never used).
    const first = await traced(query);
    expect(first.clients.map((span) => [span.name, span.parentSpanId])).toEqual([['POST statementDefinitions', first.operation?.spanId]]);
    await new Promise((resolve) => setTimeout(resolve, DEFINITIONS_FRESH_MS + 200));
    // Stale: answered at once, refreshed after the answer, in the background.
    const caller = callerContext();
    expect((await browser.graphql(query, undefined, { headers: { traceparent: caller.traceparent } })).codes).toEqual([]);
    const isRefresh = (span: ReceivedSpan) => span.kind === SPAN_KIND.client && span.attributes['statement_gateway.upstream.operation'] === 'statementDefinitions';
    const spans = await spansOf(caller.traceId, (inTrace) => inTrace.some(isRefresh));
    const refresh = spans.filter(isRefresh);
    expect(refresh).toHaveLength(1);
    // Its parent is the request's innermost span when the call starts: the operation's, or the
    // SERVER span's once the operation has answered (the refresh first takes its Redis lock).
    const parents = spans.filter((span) => span.kind === SPAN_KIND.server || span.attributes['graphql.operation.type'] !== undefined).map((span) => span.spanId);
    expect(parents).toHaveLength(2);
    expect(parents).toContain(refresh[0]?.parentSpanId);
    expect(refresh[0]).toMatchObject({ name: 'POST statementDefinitions', attributes: { 'http.response.status_code': 200 } });
    // No personal data: the attributes are the CLIENT span's usual few, no event, no uid.
    expect(Object.keys(refresh[0]?.attributes ?? {}).sort()).toEqual(CLIENT_ATTRIBUTES);
    const raw = JSON.stringify(refresh[0]?.raw);
    expect(raw).not.toContain(DEMO_ACCOUNT.email);
    expect((refresh[0]?.raw as { events?: unknown[] }).events ?? []).toEqual([]);
    const sent = await upstreamRequestsOf(sandbox.url, caller.traceId);
    expect(sent.map((entry) => [entry.path, spanIdOf(entry.traceparent)])).toEqual([['/v2/graphql', refresh[0]?.spanId]]);
  });

  it('traces a drop-in front request whose credential the gateway has not verified: passed through as it came, one `POST graphql` CLIENT span, the upstream told', async () => {
    const caller = callerContext();
    // Signed in at the upstream itself, so the gateway has never seen this credential.
    const response = await frontGreeting(gateway.url, sandbox.url, caller);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { secretGreeting: { response: `Hello, ${DEMO_ACCOUNT.email}! Your credential works.` } } });
    const spans = await spansOf(caller.traceId);
    const server = spans.find((span) => span.kind === SPAN_KIND.server);
    expect(server?.attributes['http.route']).toBe('/v2/graphql');
    const clients = clientsOf(spans);
    expect(clients.map((span) => [span.name, span.parentSpanId])).toEqual([['POST graphql', server?.spanId]]);
    expect(Object.keys(clients[0]?.attributes ?? {}).sort()).toEqual(CLIENT_ATTRIBUTES);
    const sent = await upstreamRequestsOf(sandbox.url, caller.traceId);
    expect(sent.map((entry) => [entry.path, spanIdOf(entry.traceparent)])).toEqual([['/v2/graphql', clients[0]?.spanId]]);
  });

  it('traces logout: the upstream sign-out is a DELETE CLIENT span of the logout mutation, in the caller\'s trace', async () => {
    const leaving = new Browser(gateway.url);
    expect((await leaving.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const caller = callerContext();
    expect((await leaving.graphql('mutation Leave { logout }', undefined, { headers: { traceparent: caller.traceparent } })).codes).toEqual([]);
    const spans = await spansOf(caller.traceId);
    const operation = spans.find((span) => span.name === 'mutation Leave');
    const clients = clientsOf(spans);
    expect(clients.map((span) => [span.name, span.parentSpanId])).toEqual([['DELETE signOut', operation?.spanId]]);
    expect(clients[0]?.attributes).toMatchObject({ 'http.request.method': 'DELETE', 'http.response.status_code': 200, 'statement_gateway.upstream.operation': 'signOut' });
    const sent = await upstreamRequestsOf(sandbox.url, caller.traceId);
    expect(sent.map((entry) => [entry.path, spanIdOf(entry.traceparent)])).toEqual([['/v2/auth/sign_out', clients[0]?.spanId]]);
  });
});
