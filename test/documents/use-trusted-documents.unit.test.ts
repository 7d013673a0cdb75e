/**
 * useTrustedDocuments, in process, before the query limits and with useErrorMapping last, as in
 * the gateway: a document named by `documentId` (both forms) or by APQ's hash, by POST and GET,
 * runs without being parsed; an unknown id is PERSISTED_QUERY_NOT_FOUND; under
 * TRUSTED_DOCUMENTS_ONLY a refused query text is answered before it is parsed; and a trusted
 * document is still held to the query limits and the PDF limit. Which callers are refused is the
 * identities' rule, specified through the gateway (test/gateway/trusted-documents.test.ts).
 */
import { parse, type ParseOptions, type Source } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { loadTrustedDocuments } from '../../src/config/trusted-documents';
import { useTrustedDocuments, type TrustedDocumentsOptions } from '../../src/documents/use-trusted-documents';
import { gatewayError } from '../../src/errors';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { createMetrics } from '../../src/observability/metrics';
import { QUERY_LIMITS, useQueryLimits } from '../../src/protection/use-query-limits';
import { capturedLog } from '../support/captured-log';
import { clientPresetManifest, documentId } from '../support/trusted-documents';
import { yogaWith, type GraphqlAnswer } from '../support/yoga';
import { requestState } from '../support/request-state';

const HELLO = 'query Hello { hello }';
const TWO_OPERATIONS = 'query Hello { hello } query Tree { tree { name } }';
const ADD = 'mutation Add($s: [String!]!) { addStatements(statements: $s) }';
const DEEP = `query Deep { tree { ${'child { '.repeat(QUERY_LIMITS.depth - 1)}name${' }'.repeat(QUERY_LIMITS.depth - 1)} } }`;
const PAGES = `query Pages($n: Int) { ${Array.from({ length: 6 }, (_, i) => `p${i}: statements(first: $n) { nodes { pdf } }`).join(' ')} }`;
const DOCUMENTS = [HELLO, TWO_OPERATIONS, ADD, DEEP, PAGES];

const loaded = loadTrustedDocuments(clientPresetManifest(DOCUMENTS));
if (!('documents' in loaded)) throw new Error(loaded.problems.join('\n'));
const { documents } = loaded;

/** Counts the texts actually parsed (an onParse hook runs for a trusted document too). */
function parseCounter(): { readonly plugin: Plugin; readonly parsed: string[] } {
  const parsed: string[] = [];
  return {
    parsed,
    plugin: {
      onParse({ parseFn, setParseFn }) {
        setParseFn((source: string | Source, options?: ParseOptions) => {
          parsed.push(typeof source === 'string' ? source : source.body);
          return parseFn(source, options);
        });
      },
    },
  };
}

function gatewayLike(options: Partial<TrustedDocumentsOptions> = {}) {
  const counter = parseCounter();
  const state = requestState();
  const server = yogaWith([
    useTrustedDocuments({ documents, ...options }),
    ...useQueryLimits({ introspection: true, maxQueryBytes: 1_000 }),
    // After graphql-armor's token limit, which replaces the parse function rather than wrapping it.
    counter.plugin,
    useErrorMapping({ ...state, log: capturedLog().log, metrics: createMetrics({ processMetrics: false }) }),
  ]);
  const answer = async (response: Promise<Response>): Promise<GraphqlAnswer> => {
    const received = await response;
    const body = (await received.json()) as GraphqlAnswer['body'];
    return { status: received.status, headers: received.headers, body, codes: (body.errors ?? []).map((error) => error.extensions?.code) };
  };
  return {
    parsed: counter.parsed,
    post: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      answer(server.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })),
    get: (params: Record<string, unknown>) =>
      answer(server.fetch(`/graphql?${new URLSearchParams(Object.entries(params).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]))}`)),
    text: (query: string, headers: Record<string, string> = {}) => server.graphql(query, { headers }),
  };
}

const apq = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: documentId(text) } });

describe('useTrustedDocuments: naming a document', () => {
  it('runs a document named by documentId as "<hex>" and as "sha256:<hex>" (POST), without parsing it', async () => {
    const server = gatewayLike();
    for (const id of [documentId(HELLO), `sha256:${documentId(HELLO)}`]) {
      const answer = await server.post({ documentId: id });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: { hello: 'world' } });
    }
    expect(server.parsed).toEqual([]);
  });

  it('runs a document named by documentId in a GET query string, with its variables and operationName', async () => {
    const server = gatewayLike();
    expect((await server.get({ documentId: `sha256:${documentId(HELLO)}` })).body).toEqual({ data: { hello: 'world' } });
    expect((await server.get({ documentId: documentId(TWO_OPERATIONS), operationName: 'Tree' })).body).toEqual({ data: { tree: { name: 'node' } } });
    expect((await server.get({ documentId: documentId(PAGES), variables: { n: 1 } })).body.data?.p0).toEqual({ nodes: [{ pdf: 'JVBERi0=' }] });
    expect(server.parsed).toEqual([]);
  });

  it('runs a document named by APQ\'s extensions.persistedQuery.sha256Hash without query, by POST and by GET', async () => {
    const server = gatewayLike();
    expect((await server.post({ extensions: apq(HELLO) })).body).toEqual({ data: { hello: 'world' } });
    expect((await server.get({ extensions: apq(HELLO) })).body).toEqual({ data: { hello: 'world' } });
    expect((await server.post({ extensions: apq(ADD), variables: { s: ['a', 'b'] } })).body).toEqual({ data: { addStatements: 2 } });
    expect(server.parsed).toEqual([]);
  });

  it('reads an id in upper-case hex as the same digest', async () => {
    expect((await gatewayLike().post({ documentId: `sha256:${documentId(HELLO).toUpperCase()}` })).body).toEqual({ data: { hello: 'world' } });
  });

  it('answers an unknown documentId or APQ hash with PERSISTED_QUERY_NOT_FOUND (400), by POST and by GET', async () => {
    const server = gatewayLike();
    const unknown = documentId('query Unknown { hello }');
    for (const answer of [
      await server.post({ documentId: unknown }),
      await server.post({ documentId: `sha256:${unknown}` }),
      await server.get({ documentId: unknown }),
      await server.post({ extensions: apq('{ hello }') }),
      await server.get({ extensions: apq('{ hello }') }),
      await server.post({ documentId: 'md5:d41d8cd98f00b204e9800998ecf8427e' }),
    ]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ errors: [{ message: 'No trusted document has this id.', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    }
  });

  it('answers an APQ hash or documentId with PERSISTED_QUERY_NOT_SUPPORTED (200, PersistedQueryNotSupported) when no manifest is loaded, and still runs texts', async () => {
    const server = gatewayLike({ documents: new Map() });
    for (const answer of [
      await server.post({ extensions: apq('{ hello }') }),
      await server.get({ extensions: apq('{ hello }') }),
      await server.post({ documentId: documentId(HELLO) }),
    ]) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ errors: [{ message: 'PersistedQueryNotSupported', extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' } }] });
    }
    expect((await server.post({ query: '{ hello }', extensions: apq('{ hello }') })).body).toEqual({ data: { hello: 'world' } });
  });

  it('answers a request with neither a query nor a document id, or an id that is not a string, with BAD_REQUEST (400)', async () => {
    const server = gatewayLike();
    for (const answer of [await server.post({}), await server.post({ documentId: 42 }), await server.get({})]) {
      expect(answer.status).toBe(400);
      expect(answer.codes).toEqual(['BAD_REQUEST']);
    }
  });

  it('keeps Yoga\'s rules about methods: a mutation named in a GET is refused with 405', async () => {
    const answer = await gatewayLike().get({ documentId: documentId(ADD), variables: { s: ['a'] } });
    expect(answer.status).toBe(405);
    expect(answer.codes).toEqual(['BAD_REQUEST']);
  });

  it('still runs query texts when TRUSTED_DOCUMENTS_ONLY is off', async () => {
    const server = gatewayLike();
    expect((await server.text('{ hello }')).body).toEqual({ data: { hello: 'world' } });
    expect(server.parsed).toEqual(['{ hello }']);
  });
});

describe('useTrustedDocuments: TRUSTED_DOCUMENTS_ONLY', () => {
  const onlyDocuments = () => gatewayError('PERSISTED_QUERY_ONLY');

  it('refuses a query text with PERSISTED_QUERY_ONLY (400) before parsing it, even a malformed one', async () => {
    const server = gatewayLike({ queryTextRefusal: onlyDocuments });
    for (const query of ['{ hello }', HELLO, '{ this is not graphql']) {
      const answer = await server.text(query);
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ errors: [{ message: 'Only trusted documents are accepted here: send a documentId instead of a query text.', extensions: { code: 'PERSISTED_QUERY_ONLY' } }] });
    }
    expect(server.parsed).toEqual([]);
  });

  it('refuses a query text sent with an APQ hash too (no registration of new documents)', async () => {
    const answer = await gatewayLike({ queryTextRefusal: onlyDocuments }).post({ query: '{ tree { name } }', extensions: apq('{ tree { name } }') });
    expect(answer.codes).toEqual(['PERSISTED_QUERY_ONLY']);
  });

  it('still runs documents named by id', async () => {
    const server = gatewayLike({ queryTextRefusal: onlyDocuments });
    expect((await server.post({ documentId: documentId(HELLO) })).body).toEqual({ data: { hello: 'world' } });
    expect((await server.get({ extensions: apq(HELLO) })).body).toEqual({ data: { hello: 'world' } });
  });

  it('answers with the refusal the rule gives (an unknown API key is UNAUTHENTICATED), and runs texts it admits', async () => {
    const server = gatewayLike({ queryTextRefusal: (request) => (request.headers.get('authorization') === 'Bearer right' ? undefined : gatewayError('UNAUTHENTICATED', 'Unknown API key.')) });
    const refused = await server.text('{ hello }', { authorization: 'Bearer wrong' });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ errors: [{ message: 'Unknown API key.', extensions: { code: 'UNAUTHENTICATED' } }] });
    expect(server.parsed).toEqual([]);
    expect((await server.text('{ hello }', { authorization: 'Bearer right' })).body).toEqual({ data: { hello: 'world' } });
  });

  it('leaves exempt requests (the drop-in front\'s) alone: their texts run', async () => {
    const server = gatewayLike({ queryTextRefusal: onlyDocuments, exempt: (request) => request.headers.has('x-front') });
    expect((await server.text('{ hello }', { 'x-front': '1' })).body).toEqual({ data: { hello: 'world' } });
    expect((await server.text('{ hello }')).codes).toEqual(['PERSISTED_QUERY_ONLY']);
  });
});

describe('useTrustedDocuments: the limits still apply to a trusted document', () => {
  it(`refuses a trusted document deeper than ${QUERY_LIMITS.depth} with QUERY_TOO_COMPLEX`, async () => {
    const answer = await gatewayLike().post({ documentId: documentId(DEEP) });
    expect(answer.status).toBe(400);
    expect(answer.codes).toEqual(['QUERY_TOO_COMPLEX']);
    expect(answer.body.errors?.[0]?.message).toMatch(/Query depth limit of 12 exceeded/);
  });

  it('refuses a trusted document whose variables ask for more than 500 PDFs, and runs it with fewer', async () => {
    const server = gatewayLike();
    const over = await server.post({ documentId: documentId(PAGES), variables: { n: 100 } });
    expect(over.status).toBe(400);
    expect(over.body.errors?.[0]?.message).toBe('The query can answer with up to 600 PDFs; at most 500 are allowed per request.');
    const within = await server.post({ documentId: documentId(PAGES), variables: { n: 50 } });
    expect(within.codes).toEqual([]);
    expect((within.body.data?.p5 as { nodes: unknown[] }).nodes).toHaveLength(50);
  });

  it('refuses the same depth as a query text too (the document is not trusted for its text alone)', async () => {
    const answer = await gatewayLike().text(DEEP);
    expect(answer.codes).toEqual(['QUERY_TOO_COMPLEX']);
    expect(parse(DEEP).definitions).toHaveLength(1);
  });
});
