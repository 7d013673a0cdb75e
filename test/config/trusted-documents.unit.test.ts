/**
 * TRUSTED_DOCUMENTS_FILE and TRUSTED_DOCUMENTS_ONLY through loadConfig: both manifest forms load
 * (the example frontend's generated one among them), each document parsed once; a malformed file,
 * an id that is not the SHA-256 of its document, or a document that is not an executable GraphQL
 * document stops the start with a ConfigError naming the variable and the entry.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index';
import { clientPresetManifest, documentId, manifestFile } from '../support/trusted-documents';
import { configRefusal } from '../support/config';

const HELLO = 'query Hello { secretGreeting { response } }';
const LOGOUT = 'mutation Logout { logout }';
const SPA_MANIFEST = path.resolve(__dirname, '../../examples/spa/src/gql/persisted-documents.json');

const refusal = (env: NodeJS.ProcessEnv): string => configRefusal(env).message;

const apollo = (operations: unknown[]) => ({ format: 'apollo-persisted-query-manifest', version: 1, operations });
const operation = (body: string, name: string, type = 'query') => ({ id: documentId(body), name, type, body });

describe('TRUSTED_DOCUMENTS_FILE', () => {
  it('is off by default: no documents, and query texts allowed', () => {
    expect(loadConfig({}).trustedDocuments).toEqual({ documents: new Map(), only: false });
  });

  it('loads { "<sha256 hex>": "<document>" }, each document parsed once, by its lowercase id', () => {
    const config = loadConfig({ TRUSTED_DOCUMENTS_FILE: clientPresetManifest([HELLO, LOGOUT]) });
    const documents = config.trustedDocuments.documents;
    expect([...documents.keys()].sort()).toEqual([documentId(HELLO), documentId(LOGOUT)].sort());
    const hello = documents.get(documentId(HELLO));
    expect(hello?.text).toBe(HELLO);
    expect(hello?.document.kind).toBe(Kind.DOCUMENT);
    expect(hello?.document.definitions[0]).toMatchObject({ kind: Kind.OPERATION_DEFINITION, name: { value: 'Hello' } });
  });

  it('accepts ids in upper-case hex, kept in lower case', () => {
    const config = loadConfig({ TRUSTED_DOCUMENTS_FILE: manifestFile({ [documentId(HELLO).toUpperCase()]: HELLO }) });
    expect([...config.trustedDocuments.documents.keys()]).toEqual([documentId(HELLO)]);
  });

  it('loads Apollo\'s persisted query manifest', () => {
    const file = manifestFile(apollo([operation(HELLO, 'Hello'), operation(LOGOUT, 'Logout', 'mutation')]));
    const documents = loadConfig({ TRUSTED_DOCUMENTS_FILE: file }).trustedDocuments.documents;
    expect(documents.get(documentId(LOGOUT))?.text).toBe(LOGOUT);
    expect(documents.size).toBe(2);
  });

  it('loads the example frontend\'s manifest, as GraphQL Code Generator\'s client preset writes it', () => {
    const documents = loadConfig({ TRUSTED_DOCUMENTS_FILE: SPA_MANIFEST }).trustedDocuments.documents;
    // Every document the example's codegen wrote (its five reads and writes, and the add form's two).
    const written = Object.keys(JSON.parse(readFileSync(SPA_MANIFEST, 'utf8')) as Record<string, string>);
    expect(written.length).toBeGreaterThanOrEqual(7);
    expect([...documents.keys()].sort()).toEqual(written.sort());
    for (const [id, document] of documents) expect(documentId(document.text)).toBe(id);
  });

  it.each([
    ['a missing file', () => path.join(path.dirname(manifestFile({})), 'absent.json'), 'cannot read'],
    ['malformed JSON', () => manifestFile('{"a": '), 'is not valid JSON'],
    ['a list instead of an object', () => manifestFile([HELLO]), 'must hold a JSON object'],
    ['a document that is not a string', () => manifestFile({ [documentId(HELLO)]: { query: HELLO } }), `entry "${documentId(HELLO)}": the document must be a string`],
    ['an id that is not a SHA-256 in hex', () => manifestFile({ Hello: HELLO }), 'entry "Hello": the id must be the SHA-256 of the document in hex'],
    ['an Apollo manifest of another version', () => manifestFile({ ...apollo([]), version: 2 }), 'version'],
    ['an Apollo manifest of another format', () => manifestFile({ ...apollo([]), format: 'relay' }), 'format'],
    ['an Apollo operation without a body', () => manifestFile(apollo([{ id: documentId(HELLO), name: 'Hello', type: 'query' }])), `operation 1, entry "${documentId(HELLO)}" (Hello): body`],
    ['an Apollo operation of an unknown type', () => manifestFile(apollo([{ ...operation(HELLO, 'Hello'), type: 'fragment' }])), `operation 1, entry "${documentId(HELLO)}" (Hello): type`],
  ])('stops the start on %s, naming the variable and what is wrong', (_case, file, fragment) => {
    const message = refusal({ TRUSTED_DOCUMENTS_FILE: file() });
    expect(message).toContain('TRUSTED_DOCUMENTS_FILE: ');
    expect(message).toContain(fragment);
  });

  it('stops the start on an id that is not the SHA-256 of its document, naming the entry and the digest it should have', () => {
    const wrong = documentId(LOGOUT);
    const message = refusal({ TRUSTED_DOCUMENTS_FILE: manifestFile({ [documentId(HELLO)]: HELLO, [wrong]: `${LOGOUT} ` }) });
    expect(message).toBe(`Invalid configuration:\n  TRUSTED_DOCUMENTS_FILE: entry "${wrong}": the id is not the SHA-256 of its document (that is ${documentId(`${LOGOUT} `)})`);
  });

  it('stops the start on an Apollo operation whose id is not the SHA-256 of its body, naming it', () => {
    const message = refusal({ TRUSTED_DOCUMENTS_FILE: manifestFile(apollo([operation(HELLO, 'Hello'), { ...operation(LOGOUT, 'Logout', 'mutation'), body: 'mutation Logout { logout } ' }])) });
    expect(message).toContain(`TRUSTED_DOCUMENTS_FILE: operation 2, entry "${documentId(LOGOUT)}" (Logout): the id is not the SHA-256 of its document`);
  });

  it('stops the start on a document that does not parse, or has no operation, naming the entry', () => {
    const broken = '{ secretGreeting { response }';
    const fragmentOnly = 'fragment F on Query { session { uid } }';
    const message = refusal({ TRUSTED_DOCUMENTS_FILE: clientPresetManifest([HELLO, broken, fragmentOnly]) });
    expect(message).toContain(`TRUSTED_DOCUMENTS_FILE: entry "${documentId(broken)}": the document does not parse (Syntax Error: Expected Name, found <EOF>.)`);
    expect(message).toContain(`TRUSTED_DOCUMENTS_FILE: entry "${documentId(fragmentOnly)}": the document has no operation`);
  });

  it('lists ten problems and counts the rest (a manifest hashed with another function fails every entry)', () => {
    const texts = Array.from({ length: 25 }, (_, i) => `query Q${i} { session { uid } }`);
    const message = refusal({ TRUSTED_DOCUMENTS_FILE: manifestFile(Object.fromEntries(texts.map((text, i) => [documentId(texts[(i + 1) % texts.length] ?? ''), text]))) });
    expect(message.split('\n').filter((line) => line.includes('is not the SHA-256'))).toHaveLength(10);
    expect(message).toContain('TRUSTED_DOCUMENTS_FILE: and 15 more entries like these');
  });
});

describe('TRUSTED_DOCUMENTS_ONLY', () => {
  it('is read as a flag beside the file', () => {
    const file = clientPresetManifest([HELLO]);
    expect(loadConfig({ TRUSTED_DOCUMENTS_FILE: file, TRUSTED_DOCUMENTS_ONLY: 'true' }).trustedDocuments.only).toBe(true);
    expect(loadConfig({ TRUSTED_DOCUMENTS_FILE: file, TRUSTED_DOCUMENTS_ONLY: 'false' }).trustedDocuments.only).toBe(false);
    expect(refusal({ TRUSTED_DOCUMENTS_FILE: file, TRUSTED_DOCUMENTS_ONLY: 'sometimes' })).toContain('TRUSTED_DOCUMENTS_ONLY: expected true or false');
  });

  it('stops the start without TRUSTED_DOCUMENTS_FILE, which would refuse every browser request', () => {
    expect(refusal({ TRUSTED_DOCUMENTS_ONLY: 'true' })).toContain('TRUSTED_DOCUMENTS_ONLY: needs TRUSTED_DOCUMENTS_FILE');
  });
});
