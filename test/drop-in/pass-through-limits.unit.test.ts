/**
 * The front's limits on GraphQL it passes through, as functions: the cheap bounds and the root
 * fields readPassThrough finds, and checkPassThrough refusing whenever a check fails, never letting
 * a request through because a walk threw.
 */
import { GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { FRONT_LIMITS } from '../../src/drop-in/front-limits';
import { checkPassThrough, readPassThrough, type PassThroughRequest } from '../../src/drop-in/pass-through-limits';
import { gatewayError, type GatewayError } from '../../src/errors';
import { upstreamSchema } from '../support/upstream-schema';

const LIMITS = { ...FRONT_LIMITS, maxQueryBytes: 100_000 };

const JSON_TYPE = 'application/json';
const body = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).buffer;

function read(query: string, variables: Record<string, unknown> = {}): PassThroughRequest {
  const request = readPassThrough(body({ query, variables }), JSON_TYPE, LIMITS);
  if (request === 'malformed') throw new Error('malformed');
  return request;
}

/** The error `run` throws, or undefined. */
function thrown(run: () => void): GatewayError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error as GatewayError;
  }
}

/** The upstream's schema, with getRootType replaced: what a walk sees when it fails. */
function failingSchema(failure: () => never): GraphQLSchema {
  const schema = new GraphQLSchema(upstreamSchema().toConfig());
  schema.getRootType = failure;
  return schema;
}

describe('the limits on GraphQL the front passes through', () => {
  it('finds the root fields of the operation, aliases and fragments included, each fragment once', () => {
    const request = read('mutation { a: confirmRegistration(token: "1") { response } ...F ...F } fragment F on Mutation { b: confirmRegistration(token: "2") { response } }');
    expect(request.operation?.operation).toBe('mutation');
    expect(request.fields.map((field) => field.alias?.value)).toEqual(['a', 'b']);
  });

  it('says malformed for JSON that does not parse, and refuses a text over the token limit before any walk', () => {
    expect(readPassThrough(new TextEncoder().encode('{"query":').buffer, JSON_TYPE, LIMITS)).toBe('malformed');
    const tokens = `{ ${'__typename '.repeat(10_001)}}`;
    expect(thrown(() => readPassThrough(body({ query: tokens }), JSON_TYPE, { ...LIMITS, maxQueryBytes: 1_000_000, tokens: 10_000 }))?.code).toBe('QUERY_TOO_COMPLEX');
    // The front's own figures admit the tokens of bulk statements, but not as many selections.
    expect(thrown(() => readPassThrough(body({ query: tokens }), JSON_TYPE, { ...FRONT_LIMITS }))?.message).toMatch(/selections/);
  });

  it('refuses a form whose variables are nested parameters, which Rails would read as a list the PDF count cannot see (regression)', () => {
    const query = 'mutation($s: [Fw2UpdateInput!]!) { updateFw2Statements(statements: $s) { statements { statement { pdf } } } }';
    const items = Array.from({ length: 600 }, () => 'variables[s][][otxId]=otx-1').join('&');
    const form = new TextEncoder().encode(`query=${encodeURIComponent(query)}&${items}`).buffer;
    const refusal = thrown(() => readPassThrough(form, 'application/x-www-form-urlencoded', LIMITS));
    expect(refusal?.code).toBe('BAD_REQUEST');
    expect(refusal?.extensions.http).toMatchObject({ status: 400 });
    // The same list as one JSON string is read, and counted.
    const json = new TextEncoder().encode(new URLSearchParams({ query, variables: JSON.stringify({ s: Array.from({ length: 600 }, () => ({ otxId: 'otx-1' })) }) }).toString()).buffer;
    const request = readPassThrough(json, 'application/x-www-form-urlencoded', LIMITS);
    if (request === 'malformed') throw new Error('malformed');
    expect(thrown(() => checkPassThrough(upstreamSchema(), request))?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('refuses with QUERY_TOO_COMPLEX when a check throws anything, never lets the request through (regression)', () => {
    const request = read('{ getStatements { statements { nodes { otxId pdf } } } }');
    expect(thrown(() => checkPassThrough(upstreamSchema(), request))).toBeUndefined();
    const broken = thrown(() => checkPassThrough(failingSchema(() => { throw new TypeError('walk failed'); }), request));
    expect(broken?.code).toBe('QUERY_TOO_COMPLEX');
    expect(broken?.message).not.toContain('walk failed');
    // The PDF walk's own refusal (over its cap of visited nodes) is the answer as it is.
    const capped = gatewayError('QUERY_TOO_COMPLEX', 'Too many selections to count.');
    expect(thrown(() => checkPassThrough(failingSchema(() => { throw capped; }), request))).toBe(capped);
  });

  it('never forwards a query text that does not parse: an empty query with the body\'s credential fields goes in its place (regression)', () => {
    const form = new TextEncoder().encode(new URLSearchParams({ query: '{ getStatements(', 'access-token': 't', client: 'c', uid: 'u@example.com', other: 'x' }).toString()).buffer;
    const request = readPassThrough(form, 'application/x-www-form-urlencoded', LIMITS);
    if (request === 'malformed') throw new Error('malformed');
    expect([request.document, request.fields]).toEqual([undefined, []]);
    expect((request.unparsable?.error as Error).message).toBe('Syntax Error: Expected Name, found <EOF>.');
    expect(request.unparsable?.credentialFields).toEqual({ 'access-token': 't', client: 'c', uid: 'u@example.com' });
    expect(request.forward.contentType).toBe('application/json');
    expect(JSON.parse(Buffer.from(request.forward.body!).toString('utf8'))).toEqual({ query: '', 'access-token': 't', client: 'c', uid: 'u@example.com' });
    // An empty text is no query (the upstream says so): it goes as it came.
    const empty = readPassThrough(body({ query: '' }), JSON_TYPE, LIMITS);
    if (empty === 'malformed') throw new Error('malformed');
    expect([empty.unparsable, Buffer.from(empty.forward.body!).toString('utf8')]).toEqual([undefined, '{"query":""}']);
  });
});
