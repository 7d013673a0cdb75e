/**
 * What one request may ask for: the PDFs one answer may carry (list sizes count as multipliers),
 * the query text's length (MAX_QUERY_BYTES, refused before parsing, while variables carry bulk
 * data), and parse caches and the PDF memo bounded in bytes. In process over the upstream's
 * schema, then once through the gateway.
 */
import { parse } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { createPdfRewriter } from '../../src/cache/pdf-documents';
import { createParseCaches, documentBytes } from '../../src/protection/parse-caches';
import { MAX_PDFS_PER_ANSWER, pdfsSelected } from '../../src/protection/pdf-answer-limit';
import { useQueryLimits } from '../../src/protection/use-query-limits';
import { signedInUser } from '../support/cache';
import { useGatewayOnEmulators } from '../support/gateway';
import { upstreamSchema } from '../support/upstream-schema';

const schema = upstreamSchema();
const MAX_QUERY_BYTES = 128 * 1024;
const PAGE_OF_PDFS = 'getStatements(first: 100) { statements { nodes { pdf } } }';
const aliases = (count: number, field: string) => Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ');

function server(extra: Plugin[] = []) {
  return createYoga({ schema, plugins: [...useQueryLimits({ introspection: true, maxQueryBytes: MAX_QUERY_BYTES }), ...extra], logging: false, parserAndValidationCache: createParseCaches() });
}

async function post(yoga: ReturnType<typeof server>, query: string, variables?: Record<string, unknown>) {
  const response = await yoga.fetch('http://gateway/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
  return { status: response.status, codes: (body.errors ?? []).map((error) => error.extensions?.code), body };
}

const count = (query: string, variables?: Record<string, unknown>) => pdfsSelected(schema, parse(query), undefined, variables).pdfs;

describe('the PDFs one answer may carry', () => {
  it('refuses ten aliases of getStatements(first: 100) selecting pdf, which the cost limit lets through, as QUERY_TOO_COMPLEX', async () => {
    const answer = await post(server(), `{ ${aliases(10, PAGE_OF_PDFS)} }`);
    expect(answer.status).toBe(400);
    expect(answer.codes).toEqual(['QUERY_TOO_COMPLEX']);
    expect(answer.body.errors?.[0]?.message).toBe('The query can answer with up to 1000 PDFs; at most 500 are allowed per request.');
  });

  it('accepts a single getStatements(first: 100) selecting pdf', async () => {
    const answer = await post(server(), `{ ${PAGE_OF_PDFS} }`);
    expect(answer.status).toBe(200);
    expect(answer.codes).toEqual([]);
  });

  it('counts a page of 100 without first, first and last, and the length of otxIds', () => {
    expect(count('{ getF1099necStatements { statements { nodes { pdf } } } }')).toBe(100);
    expect(count('{ getStatements(first: 7) { statements { nodes { pdf } } } }')).toBe(7);
    expect(count('{ getStatements(last: 500) { statements { nodes { pdf } } } }')).toBe(100);
    expect(count('{ getStatements(otxIds: ["a", "b"]) { statements { nodes { pdf } } } }')).toBe(2);
    expect(count('{ getStatements { statements { nodes { otxId } } } }')).toBe(0);
  });

  it('resolves variables and counts aliases, fragments, edges and nodes, each response path once', () => {
    const query = `query($n: Int, $ids: [String!]) {
      a: getStatements(first: $n) { statements { nodes { ...Pdf pdf } edges { node { file: pdf } } } }
      b: getStatements(otxIds: $ids) { statements { nodes { ... on Statement { pdf } } } }
    }
    fragment Pdf on Statement { pdf }`;
    expect(count(query, { n: 10, ids: ['x', 'y', 'z'] })).toBe(10 + 10 + 3);
    expect(count(query, {})).toBe(300);
  });

  it('refuses a document whose variables ask for more than the limit, and accepts it with fewer', async () => {
    const query = `query($n: Int) { ${aliases(6, 'getStatements(first: $n) { statements { nodes { pdf } } }')} }`;
    const yoga = server();
    expect((await post(yoga, query, { n: 50 })).codes).toEqual([]);
    expect(6 * 100).toBeGreaterThan(MAX_PDFS_PER_ANSWER);
    expect((await post(yoga, query, { n: 100 })).codes).toEqual(['QUERY_TOO_COMPLEX']);
    expect((await post(yoga, query, { n: 50 })).codes).toEqual([]);
  });
});

describe('the query text limit', () => {
  it('refuses a 129 KiB query as QUERY_TOO_COMPLEX before parsing it', async () => {
    let parsed = 0;
    const yoga = server([{ onParse: () => void parsed++ }]);
    const answer = await post(yoga, `{ __typename } # ${'x'.repeat(129 * 1024)}`);
    expect(answer.status).toBe(400);
    expect(answer.codes).toEqual(['QUERY_TOO_COMPLEX']);
    expect(parsed).toBe(0);
  });

  it('counts bytes, not characters', async () => {
    // 44,000 characters, 132,000 bytes in UTF-8.
    const answer = await post(server(), `{ __typename } # ${'€'.repeat(44_000)}`);
    expect(answer.codes).toEqual(['QUERY_TOO_COMPLEX']);
    expect((await post(server(), `{ __typename } # ${'x'.repeat(120 * 1024)}`)).codes).toEqual([]);
  });

  it('lets the variables carry bulk data', async () => {
    const ids = Array.from({ length: 40_000 }, (_, i) => `otx-${i}`);
    const answer = await post(server(), 'query($ids: [String!]) { getStatements(otxIds: $ids) { statements { nodes { otxId pdf } } } }', { ids });
    expect(JSON.stringify(ids).length).toBeGreaterThan(MAX_QUERY_BYTES * 3);
    expect(answer.codes).toEqual([]);
  });
});

describe('bounded caches', () => {
  it('keeps parsed documents within their byte bound, dropping the oldest', () => {
    const caches = createParseCaches({ maxDocumentBytes: 4 * 1024 * 1024 });
    const sources = Array.from({ length: 40 }, (_, i) => `{ x${i}: __typename ${aliases(300, '__typename')} }`);
    for (const source of sources) caches.documentCache.set(source, parse(source));
    const one = documentBytes(parse(sources[0] ?? ''), sources[0] ?? '');
    expect(one).toBeGreaterThan(100_000);
    const kept = sources.filter((source) => caches.documentCache.get(source) !== undefined);
    expect(kept.length * one).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(kept.length).toBeGreaterThan(0);
    expect(caches.documentCache.get(sources[0] ?? '')).toBeUndefined();
    expect(caches.documentCache.get(sources[39] ?? '')).toBeDefined();
  });

  it('keeps the PDF memo within its byte bound', () => {
    const rewriter = createPdfRewriter(schema, { maxBytes: 1024 * 1024 });
    for (let i = 0; i < 50; i++) rewriter.rewrite(`{ ${aliases(20, `getStatements(first: ${i + 1}) { statements { nodes { otxId pdf } } }`)} }`);
    expect(rewriter.memoBytes).toBeGreaterThan(0);
    for (let i = 0; i < 200; i++) rewriter.rewrite(`{ getStatements { statements { nodes { pdf } } } } # ${String(i).repeat(2_000)}`);
    expect(rewriter.memoBytes).toBeLessThanOrEqual(1024 * 1024);
  });
});

describe('query bounds through the gateway', () => {
  const { sandbox, gateway } = useGatewayOnEmulators();

  it('refuses too many PDFs and a long query text with 400 QUERY_TOO_COMPLEX, and takes bulk variables', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const pdfs = await user.browser.graphql(`{ ${aliases(30, PAGE_OF_PDFS)} }`);
    expect(pdfs.status).toBe(400);
    expect(pdfs.codes).toEqual(['QUERY_TOO_COMPLEX']);
    const tenPages = await user.browser.graphql(`{ ${aliases(10, PAGE_OF_PDFS)} }`);
    expect(tenPages.status).toBe(400);
    expect(tenPages.codes).toEqual(['QUERY_TOO_COMPLEX']);
    expect(tenPages.body.errors?.[0]?.message).toContain('1000 PDFs');
    const one = await user.browser.graphql(`{ ${PAGE_OF_PDFS} }`);
    expect(one.codes).toEqual([]);
    expect(one.body.data?.getStatements.statements.nodes).toHaveLength(1);
    expect(one.body.data?.getStatements.statements.nodes[0].pdf).toMatch(/^JVBERi0/);
    const long = await user.browser.graphql(`{ __typename } # ${'x'.repeat(129 * 1024)}`);
    expect(long.status).toBe(400);
    expect(long.codes).toEqual(['QUERY_TOO_COMPLEX']);
    // 600 KB of variables, under MAX_BODY_BYTES (1 MiB).
    const ids = [user.statements[0]?.otxId ?? '', ...Array.from({ length: 30_000 }, (_, i) => `missing-${i}`)];
    const bulk = await user.browser.graphql('query($ids: [String!]) { getStatements(otxIds: $ids) { statements { nodes { otxId } } } }', { ids });
    expect(bulk.status).toBe(200);
    expect(bulk.codes).toEqual([]);
  });
});
