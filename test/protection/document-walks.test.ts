/**
 * Every walk over a client's document is bounded: fragments are counted once wherever they are
 * spread, a walk spends from a fixed budget, and a mutation's list of statements multiplies the
 * PDFs it can answer with. In process over the upstream's schema, then through a gateway, where a
 * fragment bomb must not keep /healthcheck waiting on /graphql nor on the drop-in front (which
 * walks documents nobody validated).
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { pdfsSelected } from '../../src/protection/pdf-answer-limit';
import { rootFields, selectedOperation } from '../../src/request/root-fields';
import { WalkBudget } from '../../src/protection/walk-budget';
import { countOperation, signedInUser, takeUpstreamRequests } from '../support/cache';
import { useGatewayOnEmulators } from '../support/gateway';
import { upstreamSchema } from '../support/upstream-schema';

const schema = upstreamSchema();

/** `{ ...F0 }` where each fragment spreads the next twice: 2^levels expansions, under 1 KB at 25 levels. */
function fragmentBomb(levels: number, leaf = 'secretGreeting { response }'): string {
  let query = '{ ...F0 }';
  for (let i = 0; i < levels; i++) query += ` fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`;
  return `${query} fragment F${levels} on Query { ${leaf} }`;
}

const UPDATE_WITH_PDFS = 'mutation($s: [Fw2UpdateInput!]!) { updateFw2Statements(statements: $s) { statements { statement { otxId pdf } } } }';
const copies = (count: number) => Array.from({ length: count }, () => ({ otxId: 'otx-1', statement: {} }));
const count = (query: string, variables: Record<string, unknown> = {}) => pdfsSelected(schema, parse(query), undefined, variables).pdfs;
/** UPDATE_WITH_PDFS with `$s` defaulting to `items` copies written in the document: sent without variables. */
const defaultedUpdate = (items: number) => UPDATE_WITH_PDFS.replace('!]!)', `!]! = [${Array.from({ length: items }, () => '{ otxId: "otx-1", statement: {} }').join(' ')}])`);

describe('walks over a client document', () => {
  it('counts a fragment spread twice on each of 25 levels once per fragment, not 2^25 times', () => {
    const started = performance.now();
    const selection = pdfsSelected(schema, parse(fragmentBomb(25, 'getStatements { statements { nodes { pdf } } }')), undefined, {});
    expect(selection).toEqual({ pdfs: 100, fields: 1 });
    // Seconds to hours before the fix; a generous bound, not a benchmark.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses a document too large to walk within the budget as QUERY_TOO_COMPLEX', () => {
    const inner = Array.from({ length: 300 }, (_, i) => `p${i}: pdf`).join(' ');
    const outer = Array.from({ length: 300 }, (_, i) => `s${i}: getStatements { statements { nodes { ...P } } }`).join(' ');
    const document = parse(`{ ${outer} } fragment P on Statement { ${inner} }`);
    expect(() => pdfsSelected(schema, document, undefined, {})).toThrow(expect.objectContaining({ extensions: expect.objectContaining({ code: 'QUERY_TOO_COMPLEX' }) }));
    expect(() => pdfsSelected(schema, parse('{ getStatements { statements { nodes { pdf } } } }'), undefined, {}, new WalkBudget(3))).toThrow(/too large to check/);
  });

  it('counts a mutation\'s statements list: one PDF per item, however many, aliases and literals included', () => {
    expect(count(UPDATE_WITH_PDFS, { s: copies(600) })).toBe(600);
    expect(count(UPDATE_WITH_PDFS, { s: copies(400) })).toBe(400);
    expect(count(UPDATE_WITH_PDFS, { s: {} })).toBe(1);
    const aliased = `mutation($s: [Fw2UpdateInput!]!) { ${[1, 2, 3].map((i) => `a${i}: updateFw2Statements(statements: $s) { statements { statement { pdf } } }`).join(' ')} }`;
    expect(count(aliased, { s: copies(200) })).toBe(600);
    expect(count('mutation { addFw2Statements(statements: [{}, {}, {}]) { statements { statement { pdf } } } }')).toBe(3);
    expect(count('mutation { addFw2Statements(statements: [{}, {}, {}]) { statements { recordNumber } } }')).toBe(0);
  });

  it('counts a variable the request leaves out by the default its operation declares, and one sent as null as null (regression)', () => {
    expect(count(defaultedUpdate(600))).toBe(600);
    expect(count(defaultedUpdate(600), { s: copies(2) })).toBe(2);
    const page = (declared: string, argument: string) => `query(${declared}) { getStatements(${argument}) { statements { nodes { pdf } } } }`;
    expect(count(page('$n: Int = 2', 'first: $n'))).toBe(2);
    expect(count(page('$n: Int = 2', 'last: $n'), { n: null })).toBe(100);
    expect(count(page('$n: Int = 2', 'first: $n'), { n: 7 })).toBe(7);
    expect(count(page('$ids: [String!] = ["a", "b", "c"]', 'otxIds: $ids'))).toBe(3);
    // A default over the page still counts a full page, as a literal would.
    expect(count(page('$n: Int = 1000', 'first: $n'))).toBe(100);
  });

  it('finds the root fields of an operation through each fragment once', () => {
    const document = parse(fragmentBomb(200));
    const operation = selectedOperation(document, null);
    if (!operation) throw new Error('no operation');
    expect(rootFields(document, operation).map((field) => field.name.value)).toEqual(['secretGreeting']);
  });
});

describe('document walks through the gateway', () => {
  const { sandbox, gateway } = useGatewayOnEmulators();

  it.each(['/graphql', '/v2/graphql'])('answers /healthcheck within a second while a 25-level fragment bomb is sent to %s', async (path) => {
    const bomb = fetch(`${gateway.current.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf': '1' }, body: JSON.stringify({ query: fragmentBomb(25) }) });
    const started = performance.now();
    const health = await fetch(`${gateway.current.url}/healthcheck`);
    const healthMs = performance.now() - started;
    const answer = await bomb;
    expect(health.status).toBe(200);
    expect(healthMs).toBeLessThan(1_000);
    expect(answer.status).toBe(400);
  });

  it('refuses a mutation that updates 600 copies of one statement selecting pdf, before the upstream hears of it', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    await takeUpstreamRequests(sandbox.url);
    const answer = await user.browser.graphql(UPDATE_WITH_PDFS, { s: copies(600) });
    expect([answer.status, answer.codes]).toEqual([400, ['QUERY_TOO_COMPLEX']]);
    expect(answer.body.errors?.[0]?.message).toContain('600 PDFs');
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'updateFw2Statements')).toBe(0);
  });

  it('refuses a 600-item statements list that the request leaves to its variable\'s default on /graphql, before the upstream hears of it (regression)', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    await takeUpstreamRequests(sandbox.url);
    const answer = await user.browser.graphql(defaultedUpdate(600));
    expect([answer.status, answer.codes]).toEqual([400, ['QUERY_TOO_COMPLEX']]);
    expect(answer.body.errors?.[0]?.message).toContain('600 PDFs');
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'updateFw2Statements')).toBe(0);
  });

  it('refuses a 600-item statements list that the request leaves to its variable\'s default on /v2/graphql, before the upstream hears of it (regression)', async () => {
    await takeUpstreamRequests(sandbox.url);
    const answer = await fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: defaultedUpdate(600) }) });
    const body = (await answer.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
    expect([answer.status, body.errors?.[0]?.extensions?.code]).toEqual([400, 'QUERY_TOO_COMPLEX']);
    expect(body.errors?.[0]?.message).toContain('600 PDFs');
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
  });
});
