/**
 * The drop-in front under /graphql's limits: GraphQL it passes through is refused by the cheap
 * bounds and graphql-armor's depth, alias and cost limits before any walk over its fragments (a
 * fragment bomb answers at once while /healthcheck stays quick), its root fields count against the
 * anonymous limit, and a credential the upstream refuses is forgotten at once.
 */
import { describe, expect, it } from 'vitest';
import { takeUpstreamRequests } from '../support/cache';
import { control, seed, signInRaw, type Credential } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { sendThenRead } from '../support/raw-http';

const PASSWORD = 'a-long-enough-password-123';
const READ = '{ getStatements { statements { nodes { otxId uploaderId } } } }';

/** `levels` fragments, each spreading the next twice: 2^levels visits for a walk that expands every spread. */
function fragmentBomb(levels: number): string {
  const fragments = Array.from({ length: levels }, (_, level) => `fragment F${level} on Query { ...F${level + 1} ...F${level + 1} }`);
  return `{ ...F0 } ${fragments.join(' ')} fragment F${levels} on Query { __typename }`;
}

describe('the drop-in front under /graphql\'s limits', () => {
  const { sandbox, gateway } = useGatewayOnEmulators({ RATE_LIMIT_ANONYMOUS: '30/1m', TRUST_PROXY: '1' });
  // Counters outlive a run (Redis): each request group from an IPv6 /64 of its own, new in every run.
  const run = Math.floor(Math.random() * 0xffff).toString(16);
  let address = 0;
  /** An address of its own (within TRUST_PROXY): the anonymous counter is per address. */
  const from = () => ({ 'x-forwarded-for': `2001:db8:${run}:${++address}::1` });

  const front = (body: unknown, headers: Readonly<Record<string, string>> | Credential = {}) =>
    fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const codeOf = async (response: Response) => ((await response.json()) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code;

  it('refuses a 30-level fragment bomb passed through with QUERY_TOO_COMPLEX at once, before the upstream, while /healthcheck answers (regression)', async () => {
    await takeUpstreamRequests(sandbox.url);
    const started = performance.now();
    const bomb = front({ query: fragmentBomb(30) }, from());
    const health = await fetch(`${gateway.current.url}/healthcheck`);
    const healthMs = performance.now() - started;
    const answer = await bomb;
    const elapsedMs = performance.now() - started;
    expect(answer.status).toBe(400);
    expect(await codeOf(answer)).toBe('QUERY_TOO_COMPLEX');
    expect(health.status).toBe(200);
    // Expanding every spread would take hours at 30 levels (6 s at 25); a loaded test machine needs slack.
    expect(healthMs).toBeLessThan(3_000);
    expect(elapsedMs).toBeLessThan(3_000);
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
  });

  it('refuses GraphQL it passes through over the depth or alias limit, before the upstream', async () => {
    await takeUpstreamRequests(sandbox.url);
    const deep = `{ secretGreeting ${'{ response '.repeat(13)}${'}'.repeat(13)} }`;
    const aliased = `{ secretGreeting { ${Array.from({ length: 31 }, (_, index) => `a${index}: response`).join(' ')} } }`;
    for (const query of [deep, aliased]) {
      const answer = await front({ query }, from());
      expect(answer.status).toBe(400);
      expect(await codeOf(answer)).toBe('QUERY_TOO_COMPLEX');
    }
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
  });

  it('counts root fields, aliases included, against the anonymous limit: 200 aliased confirmRegistration in one request are refused (regression)', async () => {
    const confirmations = (count: number) => `mutation { ${Array.from({ length: count }, (_, index) => `c${index}: confirmRegistration(token: "guess-${index}") { response }`).join(' ')} }`;
    await takeUpstreamRequests(sandbox.url);
    const flood = await front({ query: confirmations(200) }, from());
    expect(flood.status).toBe(429);
    expect(flood.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await codeOf(flood)).toBe('RATE_LIMITED');
    // 20 root fields, then 20 more from the same address: over 30 a minute.
    const address = from();
    expect((await front({ query: confirmations(20) }, address)).status).toBe(200);
    const second = await front({ query: confirmations(20) }, address);
    expect(second.status).toBe(429);
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.operations.length)).toEqual([20]);
  });

  it('forgets a credential at its first upstream refusal: signed out directly upstream, a cached read is not served for it afterwards (regression)', async () => {
    const email = `front-limits-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    await seed(sandbox.url, email, 'F1099nec', 2);
    const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(signedIn.status).toBe(200);
    // From an address of its own: the reads the upstream refuses are passed through, under the anonymous limit.
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email, ...from() };
    expect((await front({ query: READ }, credential)).status).toBe(200);
    await takeUpstreamRequests(sandbox.url);
    expect((await front({ query: READ }, credential)).status).toBe(200);
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);

    // Signed out at the upstream, not through the front: the gateway learns of it at the next call it makes.
    const { 'x-forwarded-for': _address, ...upstreamCredential } = credential;
    expect((await fetch(`${sandbox.url}/v2/auth/sign_out`, { method: 'DELETE', headers: upstreamCredential })).status).toBe(200);
    const upstreamRefusal = await (await fetch(`${sandbox.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: READ }) })).text();
    const greeting = await front({ query: '{ secretGreeting { response } }' }, credential);
    expect(greeting.status).toBe(401);
    await takeUpstreamRequests(sandbox.url);
    for (let read = 0; read < 2; read++) {
      const answer = await front({ query: READ }, credential);
      expect(answer.status).toBe(401);
      expect(await answer.text()).toBe(upstreamRefusal);
    }
    // Both reads were the upstream's to answer, not the read cache's.
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.status)).toEqual([401, 401]);
    expect((await signInRaw(sandbox.url, email, PASSWORD)).status).toBe(200);
  });

  it('reads a form body as Rails does and sends upstream only what it read: a comma in the media type or no media type is still counted, a name Rack reads differently is not passed on (regression)', async () => {
    const confirmations = `mutation { ${Array.from({ length: 200 }, (_, index) => `c${index}: confirmRegistration(token: "guess-${index}") { response }`).join(' ')} }`;
    // A raw request (fetch would add a media type to a body sent without one).
    const form = (body: string, contentType: string | undefined) => {
      const headers = [`Host: ${new URL(gateway.current.url).host}`, `X-Forwarded-For: ${from()['x-forwarded-for']}`, `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
      if (contentType !== undefined) headers.push(`Content-Type: ${contentType}`);
      return sendThenRead(gateway.current.url, ['POST /v2/graphql HTTP/1.1', ...headers].join('\r\n'), [Buffer.from(body)]);
    };
    await takeUpstreamRequests(sandbox.url);
    // Rack reads `application/x-www-form-urlencoded, text/plain` (and a body with no media type) as a form.
    for (const type of ['application/x-www-form-urlencoded, text/plain', undefined]) {
      const flood = await form(new URLSearchParams({ query: confirmations }).toString(), type);
      expect(flood.status, String(type)).toBe(429);
    }
    // Rack drops a space after '&' (and Rack 2 reads `[query]` as query): the gateway read no query
    // there, so none goes upstream (its log below: one request, no operation), which answers as it
    // does for a body without a query; the gateway's own limit never saw one either.
    const hidden = await form(`x=1& query=${encodeURIComponent(confirmations)}&%5Bquery%5D=${encodeURIComponent(confirmations)}`, 'application/x-www-form-urlencoded');
    expect(hidden.status).not.toBe(429);
    // A variables text JSON.parse refuses (Ruby's JSON reads comments) is refused, not sent on.
    const commented = await front({ query: 'mutation($s: [Fw2UpdateInput!]!) { updateFw2Statements(statements: $s) { statements { statement { pdf } } } }', variables: '{"s": /* c */ []}' }, from());
    expect(commented.status).toBe(400);
    expect(await codeOf(commented)).toBe('BAD_REQUEST');
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.operations)).toEqual([[]]);
  });

  it('forgets a credential signed out through the front with a form body, as devise reads it (regression: only a JSON body was read)', async () => {
    const email = `front-form-out-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    await seed(sandbox.url, email, 'F1099nec', 1);
    const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };
    const headers = { ...credential, ...from() };
    expect((await front({ query: READ }, headers)).status).toBe(200);
    const signedOut = await fetch(`${gateway.current.url}/v2/auth/sign_out`, { method: 'DELETE', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(credential).toString() });
    expect(signedOut.status).toBe(200);
    await takeUpstreamRequests(sandbox.url);
    // Not the read cache's answer: the upstream's refusal of a credential it signed out.
    expect((await front({ query: READ }, headers)).status).toBe(401);
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.status)).toEqual([401]);
  });

  it('drops the cached reads of a uid whose mutation it passes through: a verified credential\'s form body (regression: the next read was the cached list)', async () => {
    const email = `front-form-mutation-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    const [first] = await seed(sandbox.url, email, 'F1099nec', 2);
    const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    const headers = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email, ...from() };
    const count = async () => ((await (await front({ query: READ }, headers)).json()) as { data: { getStatements: { statements: { nodes: unknown[] } } } }).data.getStatements.statements.nodes.length;
    expect(await count()).toBe(2);
    await takeUpstreamRequests(sandbox.url);
    expect(await count()).toBe(2);
    // Served from the read cache: the upstream was not asked.
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
    const query = `mutation { deleteStatements(otxIds: ["${first?.otxId ?? ''}"]) { deleteCount } }`;
    const deleted = await fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ query }).toString() });
    expect(await deleted.json()).toEqual({ data: { deleteStatements: { deleteCount: 1 } } });
    expect(await count()).toBe(1);
  });
});

