/**
 * useQueryLimits, in process, each limit at its exact boundary: the query text's bytes (UTF-8),
 * tokens, depth, aliases, directives, cost, the PDFs one answer may carry, and introspection.
 * useErrorMapping runs after it, as in the gateway; graphql-armor's refusals are QUERY_TOO_COMPLEX
 * (400) where they are made, before it. In-process specs are `<plugin>.unit.test.ts`
 * beside the area's other tests (test/support/yoga.ts); query-bounds.test.ts covers the upstream schema.
 */
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { createMetrics } from '../../src/observability/metrics';
import { MAX_PDFS_PER_ANSWER } from '../../src/protection/pdf-answer-limit';
import { QUERY_LIMITS, queryLimitRules, useQueryLimits, type QueryLimitsOptions } from '../../src/protection/use-query-limits';
import { capturedLog } from '../support/captured-log';
import { requestState } from '../support/request-state';
import { yogaWith } from '../support/yoga';

const MAX_QUERY_BYTES = 1_000;

function limited(options: Partial<QueryLimitsOptions> = {}) {
  const runtime = { log: capturedLog().log, metrics: createMetrics({ processMetrics: false }) };
  return yogaWith([...useQueryLimits({ introspection: false, maxQueryBytes: MAX_QUERY_BYTES, ...options }), useErrorMapping({ ...runtime, ...requestState() })]);
}

/** Admitted: data and no error. */
async function expectAdmitted(server: ReturnType<typeof limited>, query: string, variables?: Record<string, unknown>) {
  const answer = await server.graphql(query, variables ? { variables } : {});
  expect(answer.codes, query.slice(0, 80)).toEqual([]);
  expect(answer.status).toBe(200);
  return answer;
}

async function expectRefused(server: ReturnType<typeof limited>, query: string, message: string | RegExp, variables?: Record<string, unknown>) {
  const answer = await server.graphql(query, variables ? { variables } : {});
  expect(answer.status, query.slice(0, 80)).toBe(400);
  expect(answer.codes).toEqual(['QUERY_TOO_COMPLEX']);
  expect(answer.body.errors?.[0]?.message).toMatch(message);
  expect(answer.body.data).toBeUndefined();
}

/** `{ hello }` and a comment, `bytes` long in UTF-8, padded with `pad`. */
const textOf = (bytes: number, pad: string) => `{ hello } #${pad.repeat((bytes - 11) / Buffer.byteLength(pad))}`;
const inlineStatements = (count: number) => `mutation { addStatements(statements: [${'"s" '.repeat(count)}]) }`;
const deep = (depth: number) => `{ tree { ${'child { '.repeat(depth - 2)}name${' }'.repeat(depth - 2)} } }`;
const aliases = (count: number) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: hello`).join(' ')} }`;
const pages = (...firsts: number[]) => `{ ${firsts.map((first, i) => `p${i}: statements(first: ${first}) { nodes { pdf } }`).join(' ')} }`;

describe('useQueryLimits: the query text', () => {
  it(`admits a text of exactly MAX_QUERY_BYTES and refuses one byte more, unparsed`, async () => {
    const server = limited();
    await expectAdmitted(server, textOf(MAX_QUERY_BYTES, 'x'));
    await expectRefused(server, textOf(MAX_QUERY_BYTES + 1, 'x'), `The query text is longer than ${MAX_QUERY_BYTES} bytes; pass bulk data in variables.`);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const text = textOf(MAX_QUERY_BYTES + 1, 'é');
    expect(text.length).toBeLessThan(MAX_QUERY_BYTES);
    await expectRefused(limited(), text, /longer than 1000 bytes/);
    await expectAdmitted(limited(), textOf(MAX_QUERY_BYTES - 1, 'é'));
  });

  it('admits bulk data passed in variables, which the text limit does not count', async () => {
    const statements = Array.from({ length: 2_000 }, (_, i) => `statement ${i}`);
    const answer = await expectAdmitted(limited(), 'mutation($s: [String!]!) { addStatements(statements: $s) }', { s: statements });
    expect(answer.body.data).toEqual({ addStatements: 2_000 });
  });
});

describe('useQueryLimits: graphql-armor', () => {
  it(`admits ${QUERY_LIMITS.tokens} tokens and refuses one more, while parsing`, async () => {
    const server = limited({ maxQueryBytes: 1024 * 1024 });
    // mutation { addStatements ( statements : [ ... ] ) }: 10 tokens around the list.
    await expectAdmitted(server, inlineStatements(QUERY_LIMITS.tokens - 10));
    await expectRefused(server, inlineStatements(QUERY_LIMITS.tokens - 9), `Query too complex: Token limit of ${QUERY_LIMITS.tokens} exceeded.`);
  });

  it(`admits a depth of ${QUERY_LIMITS.depth} and refuses ${QUERY_LIMITS.depth + 1}, fragments flattened`, async () => {
    const server = limited();
    await expectAdmitted(server, deep(QUERY_LIMITS.depth));
    await expectRefused(server, deep(QUERY_LIMITS.depth + 1), `Query too complex: Query depth limit of ${QUERY_LIMITS.depth} exceeded, found ${QUERY_LIMITS.depth + 1}.`);
    const viaFragment = `{ tree { ...Deeper } } fragment Deeper on Tree { ${'child { '.repeat(QUERY_LIMITS.depth - 1)}name${' }'.repeat(QUERY_LIMITS.depth - 1)} }`;
    await expectRefused(server, viaFragment, /Query depth limit of 12 exceeded/);
  });

  it(`admits ${QUERY_LIMITS.aliases} aliases and refuses ${QUERY_LIMITS.aliases + 1}`, async () => {
    const server = limited();
    await expectAdmitted(server, aliases(QUERY_LIMITS.aliases));
    await expectRefused(server, aliases(QUERY_LIMITS.aliases + 1), `Query too complex: Aliases limit of ${QUERY_LIMITS.aliases} exceeded, found ${QUERY_LIMITS.aliases + 1}.`);
  });

  it(`admits ${QUERY_LIMITS.directives} directives and refuses ${QUERY_LIMITS.directives + 1}`, async () => {
    const server = limited();
    const pairs = Array.from({ length: QUERY_LIMITS.directives / 2 }, (_, i) => `a${i}: hello @include(if: true) @skip(if: false)`).join(' ');
    await expectAdmitted(server, `{ ${pairs} }`);
    await expectRefused(server, `{ ${pairs} extra: hello @include(if: true) }`, /Directives limit of 20 exceeded, found 21/);
  });

  it(`admits a cost of exactly ${QUERY_LIMITS.cost} and refuses ${QUERY_LIMITS.cost + 1}`, async () => {
    const server = limited();
    // statements(first: n) { nodes { otxId } } costs (2 + 1.5 * (2 + 1.5)) * n = 7.25 n; each top-level hello 1.
    const costing = (hellos: number) => `{ statements(first: 2756) { nodes { otxId } } ${'hello '.repeat(hellos)}}`;
    await expectAdmitted(server, costing(QUERY_LIMITS.cost - 19_981));
    await expectRefused(server, costing(QUERY_LIMITS.cost - 19_981 + 1), `Query too complex: Query Cost limit of ${QUERY_LIMITS.cost} exceeded, found ${QUERY_LIMITS.cost + 1}.`);
  });

  it('hides field suggestions, which would map the schema for a caller who may not introspect it', async () => {
    const answer = await limited().graphql('{ helo }');
    expect(answer.codes).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(answer.body.errors?.[0]?.message).not.toContain('hello');
  });
});

describe('useQueryLimits: refusals carry their code where they are made', () => {
  it('throws a QUERY_TOO_COMPLEX GatewayError from the armor rules alone, without the error mapping', () => {
    const schema = buildSchema('type Query { tree: Tree } type Tree { child: Tree name: String }');
    const refusal = (() => {
      try {
        return validate(schema, parse(`{ tree { ${'child { '.repeat(QUERY_LIMITS.depth)}name${' }'.repeat(QUERY_LIMITS.depth)} } }`), queryLimitRules());
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ code: 'QUERY_TOO_COMPLEX', message: `Query too complex: Query depth limit of ${QUERY_LIMITS.depth} exceeded, found ${QUERY_LIMITS.depth + 2}.` });
  });

  it('refuses a batch (batching is off) with QUERY_TOO_COMPLEX, an empty one too', async () => {
    const server = limited();
    for (const batch of [[{ query: '{ hello }' }, { query: '{ hello }' }], []]) {
      const response = await server.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) });
      const body = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
      expect([response.status, body.errors?.map((error) => [error.extensions?.code, error.message])]).toEqual([400, [['QUERY_TOO_COMPLEX', 'Batching is not supported.']]]);
    }
  });
});

describe('useQueryLimits: PDFs per answer', () => {
  it(`admits ${MAX_PDFS_PER_ANSWER} PDFs and refuses ${MAX_PDFS_PER_ANSWER + 1} before anything runs`, async () => {
    const server = limited();
    await expectAdmitted(server, pages(100, 100, 100, 100, 100));
    await expectRefused(server, pages(100, 100, 100, 100, 100, 1), 'The query can answer with up to 501 PDFs; at most 500 are allowed per request.');
  });

  it('counts a page without first as a full page, and reads first from the variables', async () => {
    const server = limited();
    await expectRefused(server, `{ ${Array.from({ length: 6 }, (_, i) => `p${i}: statements { nodes { pdf } }`).join(' ')} }`, /up to 600 PDFs/);
    const byVariable = 'query($n: Int) { a: statements(first: $n) { nodes { pdf } } b: statements(first: 100) { nodes { pdf } } c: statements(first: 100) { nodes { pdf } } d: statements(first: 100) { nodes { pdf } } e: statements(first: 100) { nodes { pdf } } }';
    await expectAdmitted(server, byVariable, { n: 100 });
    // Over the upstream's page, first is still one page: 100.
    await expectAdmitted(server, byVariable, { n: 5_000 });
    await expectAdmitted(server, `{ ${Array.from({ length: 10 }, (_, i) => `p${i}: statements { nodes { otxId } }`).join(' ')} }`);
  });
});

describe('useQueryLimits: introspection', () => {
  const INTROSPECTION = '{ __schema { queryType { name } } }';

  it('refuses introspection when off, with GRAPHQL_VALIDATION_FAILED', async () => {
    const answer = await limited().graphql(INTROSPECTION);
    expect(answer.status).toBe(400);
    expect(answer.codes[0]).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(answer.body.data).toBeUndefined();
  });

  it('answers introspection when on, and to requests introspectionAllowed admits when off', async () => {
    expect((await limited({ introspection: true }).graphql(INTROSPECTION)).body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    const front = limited({ introspectionAllowed: (request) => request.headers.get('x-front') === '1' });
    expect((await front.graphql(INTROSPECTION, { headers: { 'x-front': '1' } })).codes).toEqual([]);
    expect((await front.graphql(INTROSPECTION)).codes[0]).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
