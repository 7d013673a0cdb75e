/** Trusted-documents manifests for tests: written to a temporary file, as TRUSTED_DOCUMENTS_FILE names one. */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A document's id: the SHA-256 of its text, in hex. */
export const documentId = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Writes `content` (JSON unless a string) to a fresh file; returns its path. */
export function manifestFile(content: unknown, name = 'persisted-documents.json'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sgw-documents-')), name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return file;
}

/** `{ "<sha256>": "<document>" }`, the client preset's form, for these documents. */
export function clientPresetManifest(texts: readonly string[]): string {
  return manifestFile(Object.fromEntries(texts.map((text) => [documentId(text), text])));
}
