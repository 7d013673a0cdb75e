/**
 * TRUSTED_DOCUMENTS_FILE: the documents a first-party frontend sends, by the SHA-256 of their
 * text (see the contract, "Trusted documents"). Read, checked and parsed once at start with the
 * rest of the configuration, so that a wrong manifest stops the start naming its entry, and the
 * requests that name a document never parse it. Two forms are read, those GraphQL Code
 * Generator's client preset (`persistedDocuments`) and Apollo's generator write:
 * `{ "<sha256 hex>": "<document>" }`, and
 * `{ "format": "apollo-persisted-query-manifest", "version": 1, "operations": [{ "id", "name", "type", "body" }] }`.
 */
import { createHash } from 'node:crypto';
import { readJsonFile } from './json-file';
import { Kind, parse, type DocumentNode } from 'graphql';
import { z } from 'zod';

export interface TrustedDocument {
  /** The SHA-256 of `text`, 64 lowercase hex digits. */
  readonly id: string;
  readonly text: string;
  /** `text` parsed once, at start. */
  readonly document: DocumentNode;
}

/** Problems beyond this many are counted, not listed: a wrong hash function fails every entry. */
const MAX_LISTED = 10;
const HEX_ID = /^[0-9a-fA-F]{64}$/;

const apolloManifest = z.object({
  format: z.literal('apollo-persisted-query-manifest'),
  version: z.literal(1),
  operations: z.array(z.unknown()),
});

const apolloOperation = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['query', 'mutation', 'subscription']),
  body: z.string(),
});

/** How a message names an entry: its id (shortened) and, in Apollo's form, its name. */
function label(id: unknown, name?: unknown): string {
  const shown = typeof id === 'string' ? `"${id.length > 72 ? `${id.slice(0, 72)}...` : id}"` : '(no id)';
  return typeof name === 'string' ? `entry ${shown} (${name.slice(0, 64)})` : `entry ${shown}`;
}

/** The entry's document, or what is wrong with it. */
function checkEntry(id: unknown, text: unknown, entry: string): TrustedDocument | string {
  if (typeof id !== 'string' || !HEX_ID.test(id)) return `${entry}: the id must be the SHA-256 of the document in hex (64 hex digits)`;
  if (typeof text !== 'string') return `${entry}: the document must be a string`;
  const digest = createHash('sha256').update(text).digest('hex');
  if (digest !== id.toLowerCase()) return `${entry}: the id is not the SHA-256 of its document (that is ${digest})`;
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch (error) {
    return `${entry}: the document does not parse (${(error as Error).message.split('\n')[0]})`;
  }
  if (!document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION)) return `${entry}: the document has no operation`;
  return { id: digest, text, document };
}

interface Entry {
  readonly id: unknown;
  readonly text: unknown;
  /** How messages name it. */
  readonly entry: string;
}

/** The manifest's entries (or, per entry, what is wrong with its shape), or what is wrong with the whole. */
function entriesOf(parsed: unknown, file: string): { entries: (Entry | { problem: string })[] } | { problem: string } {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: `${file} must hold a JSON object: { "<sha256 hex>": "<document>" } or Apollo's persisted query manifest` };
  }
  if (!('format' in parsed)) return { entries: Object.entries(parsed as Record<string, unknown>).map(([id, text]) => ({ id, text, entry: label(id) })) };
  const manifest = apolloManifest.safeParse(parsed);
  if (!manifest.success) {
    const issue = manifest.error.issues[0];
    return { problem: `${file}: ${issue?.path.join('.') || 'manifest'}: ${issue?.message ?? 'not an Apollo persisted query manifest'} (expected format "apollo-persisted-query-manifest", version 1, operations)` };
  }
  return {
    entries: manifest.data.operations.map((raw, index) => {
      const operation = apolloOperation.safeParse(raw);
      const fields = (typeof raw === 'object' && raw !== null ? raw : {}) as { id?: unknown; name?: unknown };
      const entry = `operation ${index + 1}, ${label(fields.id, fields.name)}`;
      if (operation.success) return { id: operation.data.id, text: operation.data.body, entry };
      const issue = operation.error.issues[0];
      return { problem: `${entry}: ${issue?.path.join('.') || 'operation'}: ${issue?.message ?? 'expected { id, name, type, body }'}` };
    }),
  };
}

/** Loads the manifest; returns the problems (one line each) or the documents by id. */
export function loadTrustedDocuments(file: string): { documents: Map<string, TrustedDocument> } | { problems: string[] } {
  const read = readJsonFile(file);
  if ('problems' in read) return read;
  const parsed = read.value;
  const entries = entriesOf(parsed, file);
  if ('problem' in entries) return { problems: [entries.problem] };
  const problems: string[] = [];
  const documents = new Map<string, TrustedDocument>();
  for (const item of entries.entries) {
    const checked = 'problem' in item ? item.problem : checkEntry(item.id, item.text, item.entry);
    if (typeof checked === 'string') problems.push(checked);
    else documents.set(checked.id, checked);
  }
  if (problems.length > MAX_LISTED) problems.splice(MAX_LISTED, Infinity, `and ${problems.length - MAX_LISTED} more entries like these`);
  return problems.length ? { problems } : { documents };
}
