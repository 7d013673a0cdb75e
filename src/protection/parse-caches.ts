/**
 * Yoga's parse and validation caches, bounded in bytes as well as in entries. Yoga's defaults hold
 * 1,024 documents whatever their size: a caller sending distinct large queries (each up to
 * MAX_QUERY_BYTES, ten thousand tokens) could pin gigabytes of syntax trees. Here each document
 * counts its estimated memory (its text and its nodes), each parse error its text; the oldest go
 * first. Validation results are kept per document object (Yoga's WeakMap), so they leave with it.
 */
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

/** What Yoga's `parserAndValidationCache` option accepts (its type is not exported). */
export interface ParseCaches {
  readonly documentCache: { get(key: string): DocumentNode | undefined; set(key: string, value: DocumentNode): void };
  readonly errorCache: { get(key: string): unknown; set(key: string, value: unknown): void };
  readonly validationCache: true;
}

export interface ParseCachesOptions {
  /** Estimated memory of the parsed documents kept (default 32 MiB). */
  readonly maxDocumentBytes?: number;
  /** Memory of the parse errors kept, by their query text (default 4 MiB). */
  readonly maxErrorBytes?: number;
  readonly maxEntries?: number;
}

/** A syntax tree node with its location and tokens (graphql 16 parsing with locations, as Yoga does). */
const BYTES_PER_NODE = 320;

/**
 * Estimated memory of a parsed document: its source text (UTF-16) and its nodes. The count stops
 * once the estimate passes `stopAbove`: a document larger than the whole cache (the drop-in
 * front's bulk adds have hundreds of thousands of nodes) is not kept, whatever its exact size.
 */
export function documentBytes(document: DocumentNode, source: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let nodes = 0;
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    if (source.length * 2 + nodes * BYTES_PER_NODE > stopAbove) break;
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (typeof value === 'object' && value !== null && 'kind' in value) {
      nodes++;
      for (const [key, child] of Object.entries(value)) if (key !== 'loc' && typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return source.length * 2 + nodes * BYTES_PER_NODE;
}

export function createParseCaches({ maxDocumentBytes = 32 * 1024 * 1024, maxErrorBytes = 4 * 1024 * 1024, maxEntries = 1_024 }: ParseCachesOptions = {}): ParseCaches {
  const ttl = 3_600_000;
  const documents = new LRUCache<string, DocumentNode>({ max: maxEntries, ttl, maxSize: maxDocumentBytes, sizeCalculation: (document, source) => Math.max(1, documentBytes(document, source, maxDocumentBytes)) });
  // An error holds its source: the text's size plus the error itself.
  const errors = new LRUCache<string, object>({ max: maxEntries, ttl, maxSize: maxErrorBytes, sizeCalculation: (_error, source) => source.length * 2 + 1_024 });
  return {
    documentCache: {
      get: (key) => documents.get(key),
      set: (key, value) => void documents.set(key, value),
    },
    errorCache: {
      get: (key) => errors.get(key),
      set: (key, value) => void (typeof value === 'object' && value !== null && errors.set(key, value)),
    },
    validationCache: true,
  };
}
