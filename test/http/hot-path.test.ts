/**
 * The hot path cannot be told apart from the Yoga pipeline: the same requests for trusted
 * documents, sent to a gateway with the hot path and to one with HOT_PATH=false (both with the fast
 * path, over the same emulator), get the same status, headers and body, write the same log lines
 * (audit lines included) and move the same metrics, for clean answers and for every way a request
 * leaves the hot path (refused checks, an unknown session, variables, operation names, media
 * types, the upstream's errors, the rate limit). statement_gateway_hot_path_answers_total shows
 * which path answered; the upstream is asked exactly once per request either way.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { takeUpstreamRequests } from '../support/cache';
import { Browser, useGateway, type TestGateway } from '../support/gateway';
import { scrape, type Scrape } from '../support/metrics';
import { serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';
import { documentId, manifestFile } from '../support/trusted-documents';

const GREETING = 'query Greeting { secretGreeting { response } }';
const SKIPPABLE = 'query Skippable($skip: Boolean!) { secretGreeting @skip(if: $skip) { response } }';
const TWICE = '{ a: secretGreeting { response } b: secretGreeting { r: response __typename } }';
const LIST = 'query List($first: Int) { getStatements(first: $first) { errors statements { nodes { otxId uploaderId } } } }';
const MIXED = '{ secretGreeting { response } getFw2Statements { errors } }';
const DOCUMENTS = [GREETING, SKIPPABLE, TWICE, LIST, MIXED];
const APP = 'https://app.example';
const SESSION_LIMIT = 60;

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const service = testServiceAccount('hot-path');
const env = (hot: boolean) => () => ({
  UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, UPSTREAM_TIMEOUT_MS: '600',
  TRUSTED_DOCUMENTS_FILE: manifestFile(Object.fromEntries(DOCUMENTS.map((text) => [documentId(text), text]))),
  ALLOWED_ORIGINS: APP, RATE_LIMIT_SESSION: `${SESSION_LIMIT}/1h`, HOT_PATH: String(hot),
  ...serviceAccountsEnv([service]),
});
const yoga = useGateway(env(false));
const hot = useGateway(env(true));

type Side = 'yoga' | 'hot';
const sides: Record<Side, { gateway: () => TestGateway; browser: Browser }> = {
  yoga: { gateway: () => yoga.current, browser: new Browser('') },
  hot: { gateway: () => hot.current, browser: new Browser('') },
};

beforeAll(async () => {
  await Promise.all([yoga.start(), hot.start()]);
});
// After the emulator's reset (useEmulator), a fresh session on each gateway.
let warm = false;
beforeEach(async () => {
  for (const side of Object.values(sides)) {
    side.browser = new Browser(side.gateway().url);
    expect((await side.browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    // A document is hot once the pipeline has run it.
    if (!warm) for (const text of DOCUMENTS) expect((await send(side, { body: { documentId: documentId(text), variables: { skip: false } } })).status).toBe(200);
    // A text once it has run that text (GREETING's only: the other texts are still the pipeline's).
    if (!warm) expect((await send(side, { body: { query: GREETING } })).status).toBe(200);
  }
  warm = true;
});
afterEach(async () => {
  await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null, latencyMs: 0 });
});

interface Sent {
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Leave the browser's cookie out. */
  readonly cookie?: string | null;
}

async function send(side: { gateway: () => TestGateway; browser: Browser }, { body, headers = {}, cookie }: Sent) {
  const sent: Record<string, string> = { 'content-type': 'application/json', 'x-csrf': '1', ...headers };
  const jar = cookie === undefined ? side.browser.cookie : cookie;
  if (jar) sent.cookie = jar;
  const response = await fetch(`${side.gateway().url}/graphql`, { method: 'POST', headers: sent, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * The headers a client sees, but the request id and date (and the session's own cookie value, and
 * a wait in seconds, which the two sides compute a moment apart).
 */
function headersOf(headers: Headers): [string, string][] {
  return [...headers].filter(([name]) => name !== 'x-request-id' && name !== 'date').map(([name, value]) => [name, name === 'retry-after' ? '<seconds>' : value.replace(/^(__Host-)?sgw_session=[^;]*/, '$1sgw_session=<value>')]);
}

/** Log lines as JSON, without what differs per request or per gateway (times, ids, the session's hash). */
function linesSince(gateway: TestGateway, from: number): Record<string, unknown>[] {
  const varying = new Set(['time', 'requestId', 'reqId', 'durationMs', 'session', 'pid', 'hostname', 'trace_id', 'span_id']);
  return gateway.output().slice(from).split('\n').filter((line) => line.startsWith('{')).map((line) => Object.fromEntries(Object.entries(JSON.parse(line) as Record<string, unknown>).filter(([key]) => !varying.has(key))));
}

/** What moved between two scrapes: counters and histogram counts (not durations). */
function moved(before: Scrape, after: Scrape): Record<string, number> {
  const key = (name: string, labels: Readonly<Record<string, string>>) => `${name}${JSON.stringify(labels)}`;
  const old = new Map(before.series.map((entry) => [key(entry.name, entry.labels), entry.value]));
  const changes: Record<string, number> = {};
  for (const entry of after.series) {
    // process_, nodejs_ and the event-loop histogram move with time, not with requests.
    if (/_(sum|bucket)$/.test(entry.name) || !/_(total|count)$/.test(entry.name) || entry.name.startsWith('process_') || entry.name.startsWith('nodejs_') || entry.name.startsWith('statement_gateway_event_loop_')) continue;
    if (/_duration_seconds_count$/.test(entry.name) && entry.name.includes('redis')) continue;
    const delta = entry.value - (old.get(key(entry.name, entry.labels)) ?? 0);
    if (delta !== 0) changes[key(entry.name, entry.labels)] = delta;
  }
  return changes;
}

const HOT_ANSWERS = 'statement_gateway_hot_path_answers_total{}';

/** One request on each side: what each saw, wrote and counted; `hot` says whether the hot path answered it. */
async function expectSame(sent: Sent | ((side: Side) => Sent), hotAnswers: 0 | 1 | ((status: number) => number)) {
  const seen = [];
  for (const name of ['yoga', 'hot'] as const) {
    const side = sides[name];
    const gateway = side.gateway();
    const before = await scrape(gateway.url);
    await takeUpstreamRequests(sandbox.url);
    const from = gateway.output().length;
    const answer = await send(side, typeof sent === 'function' ? sent(name) : sent);
    // The access line is written once the answer has gone.
    await expect.poll(() => linesSince(gateway, from).some((line) => line.event === 'request.completed')).toBe(true);
    const taken = await takeUpstreamRequests(sandbox.url);
    const upstream = taken.filter((request) => request.path === '/v2/graphql').length;
    const changes = moved(before, await scrape(gateway.url));
    expect(changes[HOT_ANSWERS] ?? 0, answer.text).toBe(name === 'yoga' ? 0 : typeof hotAnswers === 'function' ? hotAnswers(answer.status) : hotAnswers);
    delete changes[HOT_ANSWERS];
    seen.push({ status: answer.status, headers: headersOf(answer.headers), body: answer.text.replaceAll(new URL(gateway.url).host, '<gateway>').replace(/"retryAfterSeconds":\d+/g, '"retryAfterSeconds":"<seconds>"'), lines: linesSince(gateway, from), metrics: changes, upstream });
  }
  expect(seen[1]).toEqual(seen[0]);
  return seen[1];
}

const id = (text: string) => documentId(text);

/** Statements of the demo account's, for reads to list (the emulator is reset before each test). */
async function seedStatements() {
  expect((await control(sandbox.url, 'POST', '/__emulator/statements', { email: DEMO_ACCOUNT.email, form: 'Fw2', count: 3 })).status).toBe(201);
}

describe('the hot path answers as the Yoga pipeline does', () => {
  it('answers a trusted document for a browser session', async () => {
    const answer = await expectSame({ body: { documentId: id(GREETING) } }, 1);
    expect(JSON.parse(answer!.body)).toMatchObject({ data: { secretGreeting: { response: expect.any(String) } } });
    expect(answer!.upstream).toBe(1);
  });

  it('answers with an id in its other forms, an operation name, variables and aliases', async () => {
    await expectSame({ body: { documentId: `sha256:${id(GREETING).toUpperCase()}`, operationName: 'Greeting' } }, 1);
    await expectSame({ body: { documentId: id(SKIPPABLE), variables: { skip: false, extra: 1 } } }, 1);
    await expectSame({ body: { documentId: id(SKIPPABLE), variables: { skip: true }, operationName: null } }, 1);
    await expectSame({ body: { documentId: id(TWICE) } }, 1);
  });

  it('answers a query text once the pipeline has run exactly that text, trusted or not', async () => {
    const other = `{ b: secretGreeting { response } }`;
    await expectSame({ body: { query: other } }, 0);
    await expectSame({ body: { query: other } }, 1);
    await expectSame({ body: { query: GREETING } }, 1);
    await expectSame({ body: { query: GREETING, operationName: 'Greeting', variables: null } }, 1);
    await expectSame({ body: { query: SKIPPABLE, variables: { skip: false } } }, 0);
    await expectSame({ body: { query: SKIPPABLE, variables: { skip: false } } }, 1);
    await expectSame({ body: { query: `${GREETING} ` } }, 0);
    await expectSame({ body: { query: GREETING, documentId: id(GREETING) } }, 0);
  });

  it('answers statement reads through the read cache: a miss, then a hit with its Age, a bypass, a mixed read', async () => {
    await seedStatements();
    const unique = { first: 2, bench: `read-${Date.now()}` };
    const miss = await expectSame({ body: { documentId: id(LIST), variables: unique } }, 1);
    expect(miss!.metrics['statement_gateway_cache_lookups_total{"cache":"statements","result":"miss"}']).toBe(1);
    expect(miss!.upstream).toBe(1);
    const hit = await expectSame({ body: { documentId: id(LIST), variables: unique } }, 1);
    expect(hit!.metrics['statement_gateway_cache_lookups_total{"cache":"statements","result":"hit"}']).toBe(1);
    expect(hit!.upstream).toBe(0);
    expect(new Map(hit!.headers).get('age')).toBe('0');
    expect(hit!.body).toBe(miss!.body);
    const bypass = await expectSame({ body: { documentId: id(LIST), variables: unique }, headers: { 'cache-control': 'no-cache' } }, 1);
    expect(bypass!.upstream).toBe(1);
    await expectSame({ body: { documentId: id(MIXED) } }, 1);
    await expectSame({ body: { query: LIST, variables: unique } }, 0);
    await expectSame({ body: { query: LIST, variables: unique } }, 1);
  });

  it('answers a definitions hit for a text the pipeline has run, and leaves a miss to the pipeline', async () => {
    const definitions = '{ statementDefinitions { definitions { identifier name } errors } }';
    // The pipeline runs the text (the definitions are fetched), then keeps an answer (the next read).
    await expectSame({ body: { query: definitions } }, 0);
    await expectSame({ body: { query: definitions } }, 0);
    const hit = await expectSame({ body: { query: definitions } }, 1);
    expect(hit!.metrics['statement_gateway_cache_lookups_total{"cache":"definitions","result":"hit"}']).toBe(1);
    // Other variables: another answer, which the pipeline keeps first.
    await expectSame({ body: { query: definitions, variables: { unused: 1 } } }, 0);
    await expectSame({ body: { query: definitions, variables: { unused: 1 } } }, 1);
  });

  it('answers an allowed origin with the CORS headers, and each JSON media type', async () => {
    const answer = await expectSame({ body: { documentId: id(GREETING) }, headers: { origin: APP } }, 1);
    expect(new Map(answer!.headers).get('access-control-allow-origin')).toBe(APP);
    await expectSame({ body: { documentId: id(GREETING) }, headers: { accept: 'application/graphql-response+json' } }, 1);
    await expectSame({ body: { documentId: id(GREETING) }, headers: { accept: 'application/json, */*' } }, 1);
  });

  it('answers a service account', async () => {
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: service.email, password: service.password })).status).toBe(201);
    // Its first call signs the account in (both sides alike); the next is a call like any other.
    await expectSame({ body: { documentId: id(GREETING) }, headers: { authorization: `Bearer ${service.key}`, 'x-csrf': '' }, cookie: null }, 1);
    await expectSame({ body: { documentId: id(GREETING) }, headers: { authorization: `Bearer ${service.key}`, 'x-csrf': '' }, cookie: null }, 1);
  });

  it('leaves the CSRF refusals, an unknown session and anonymous callers to the pipeline, which refuses them once', async () => {
    await expectSame({ body: { documentId: id(GREETING) }, headers: { origin: 'https://evil.example' } }, 0);
    await expectSame({ body: { documentId: id(GREETING) }, headers: { 'x-csrf': '' } }, 0);
    await expectSame({ body: { documentId: id(GREETING) }, cookie: 'sgw_session=not-a-session' }, 0);
    await expectSame({ body: { documentId: id(GREETING) }, headers: { authorization: 'Bearer sgw_unknown' }, cookie: null }, 0);
  });

  it('leaves other bodies, operation names, variables and media types to the pipeline', async () => {
    await expectSame({ body: { documentId: id(GREETING), extensions: {} } }, 0);
    await expectSame({ body: { documentId: id(GREETING), operationName: 'Other' } }, 0);
    await expectSame({ body: { documentId: id(SKIPPABLE), variables: { skip: 'yes' } } }, 0);
    await expectSame({ body: { documentId: id(SKIPPABLE) } }, 0);
    await expectSame({ body: { documentId: 'f'.repeat(64) } }, 0);
    await expectSame({ body: '{"documentId": ' }, 0);
    await expectSame({ body: { documentId: id(GREETING) }, headers: { accept: 'text/event-stream' } }, 0);
  });

  it('hands an answer with the upstream errors to the pipeline without asking the upstream again', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 502, latencyMs: 150 });
    const from = hot.current.output().length;
    const answer = await expectSame({ body: { documentId: id(GREETING) } }, 0);
    // As many calls as the pipeline makes alone (a query's one retry of a 5xx included).
    expect(answer!.upstream).toBe(2);
    expect(JSON.parse(answer!.body)).toMatchObject({ errors: [{ extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] });
    // Its access line counts the time spent before the hand-over (both slow upstream calls).
    const line = hot.current.output().slice(from).split('\n').find((text) => text.includes('"request.completed"'));
    expect((JSON.parse(line ?? '{}') as { durationMs?: number }).durationMs).toBeGreaterThanOrEqual(300);
  });

  it('counts the session limit once per request, and leaves its refusal to the pipeline', async () => {
    // Both sides' sessions have spent the same so far: spend the rest, then both refuse alike.
    let refusal: string | undefined;
    for (let i = 0; i < SESSION_LIMIT && refusal === undefined; i++) {
      const answer = await expectSame({ body: { documentId: id(TWICE) } }, (status) => (status === 200 ? 1 : 0));
      if (answer!.status !== 200) refusal = answer!.body;
    }
    expect(JSON.parse(refusal ?? '{}')).toMatchObject({ errors: [{ extensions: { code: 'RATE_LIMITED' } }] });
  });
});
