/**
 * The document side of the PDF cache. A read that selects `pdf` on a statement is sent upstream
 * with each such field replaced by a marker, `_sgwPdf<n>: otxId`: the upstream still decides
 * which statements the caller may see, but sends no PDF. The answer is then walked and every
 * marker becomes the PDF (from the cache, or from one batched call for the missing ones) under
 * the client's own response key, in the same place.
 *
 * Beside the markers the gateway asks for every other field of the statement (`_sgwF<n>: <field>`,
 * taken out of the answer again): a digest of them, `status` included, is what a cached PDF is
 * held for. A statement changed outside the gateway (its fields, or a finalize that lifts the
 * DRAFT watermark) then has another digest, and its old PDF is never served with it.
 */
import { createHash } from 'node:crypto';
import { getNamedType, isLeafType, isNonNullType, isObjectType, Kind, OperationTypeNode, parse, print, TypeInfo, visit, visitWithTypeInfo, type FieldNode, type GraphQLObjectType, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import { LRUCache } from 'lru-cache';

const MARKER_PREFIX = '_sgwPdf';
const FIELD_PREFIX = '_sgwF';
/** Characters of a statement digest: 24 bytes in base64, no padding (see digestOf). */
export const DIGEST_CHARS = 32;

export interface PdfRewrite {
  /** The document to send upstream. */
  readonly query: string;
  /** Marker alias → the client's response key for the PDF (`pdf`, or its alias). */
  readonly markers: ReadonlyMap<string, string>;
}

/** Statement types: objects with both `otxId` and `pdf`. */
function isStatementType(type: unknown): boolean {
  if (!isObjectType(type)) return false;
  const fields = type.getFields();
  return 'otxId' in fields && 'pdf' in fields;
}

/** The fields a statement's digest covers: every leaf field but `pdf` that needs no argument. */
function digestFields(type: GraphQLObjectType): FieldNode[] {
  return Object.values(type.getFields())
    .filter((field) => field.name !== 'pdf' && isLeafType(getNamedType(field.type)) && !field.args.some((arg) => isNonNullType(arg.type)))
    .map((field) => field.name)
    .sort()
    // Short aliases: they cross the wire with every statement of every read that selects `pdf`.
    .map((name, i): FieldNode => ({ kind: Kind.FIELD, alias: { kind: Kind.NAME, value: `${FIELD_PREFIX}${i.toString(36)}` }, name: { kind: Kind.NAME, value: name } }));
}

export function createPdfRewriter(schema: GraphQLSchema, { maxDocuments = 1_000, maxBytes = 16 * 1024 * 1024 } = {}) {
  const fieldsOf = new Map<GraphQLObjectType, FieldNode[]>();
  // Documents repeat: remember each one's rewrite (or that it needs none), bounded in bytes too
  // (the texts held, UTF-16), since an upstream document can be as long as the client's query.
  const memo = new LRUCache<string, PdfRewrite | false>({
    max: maxDocuments,
    maxSize: maxBytes,
    sizeCalculation: (rewrite, query) => (query.length + (rewrite ? rewrite.query.length : 0)) * 2 + 64,
  });

  const rewrite = (query: string): PdfRewrite | false => {
    // A document that names a marker itself is left alone (its answer would be misread).
    if (query.includes(MARKER_PREFIX) || query.includes(FIELD_PREFIX)) return false;
    let document;
    try {
      document = parse(query, { noLocation: true });
    } catch {
      return false;
    }
    // Only reads: a mutation's answer is passed through untouched.
    if (document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION && definition.operation !== OperationTypeNode.QUERY)) return false;
    const markers = new Map<string, string>();
    const byResponseKey = new Map<string, string>();
    const typeInfo = new TypeInfo(schema);
    const rewritten = visit(
      document,
      visitWithTypeInfo(typeInfo, {
        Field(node): FieldNode | undefined {
          if (node.name.value !== 'pdf' || !isStatementType(typeInfo.getParentType())) return undefined;
          const responseKey = node.alias?.value ?? 'pdf';
          let marker = byResponseKey.get(responseKey);
          if (!marker) {
            marker = `${MARKER_PREFIX}${byResponseKey.size}`;
            byResponseKey.set(responseKey, marker);
            markers.set(marker, responseKey);
          }
          return { ...node, alias: { kind: Kind.NAME, value: marker }, name: { kind: Kind.NAME, value: 'otxId' }, arguments: [] };
        },
        SelectionSet: {
          // Leaving a statement's selection that holds a marker: the digest's fields go beside it.
          leave(node): SelectionSetNode | undefined {
            const type = typeInfo.getParentType();
            if (!isObjectType(type) || !isStatementType(type)) return undefined;
            if (!node.selections.some((selection) => selection.kind === Kind.FIELD && selection.alias?.value.startsWith(MARKER_PREFIX))) return undefined;
            let fields = fieldsOf.get(type);
            if (!fields) fieldsOf.set(type, (fields = digestFields(type)));
            return { ...node, selections: [...node.selections, ...fields] };
          },
        },
      }),
    );
    return markers.size === 0 ? false : { query: print(rewritten), markers };
  };

  return {
    /** The rewrite of a read selecting `pdf` on statements, or false when there is nothing to do. */
    rewrite(query: string): PdfRewrite | false {
      let result = memo.get(query);
      if (result === undefined) memo.set(query, (result = rewrite(query)));
      return result;
    },
    /** The memo's estimated size in bytes (for tests). */
    get memoBytes(): number {
      return memo.calculatedSize;
    },
  };
}

export type PdfRewriter = ReturnType<typeof createPdfRewriter>;

/** A digest of the statement's fields as the upstream answered them (24 bytes, base64: no padding). */
function digestOf(statement: Record<string, unknown>): string {
  const fields = Object.keys(statement).filter((key) => key.startsWith(FIELD_PREFIX)).sort().map((key) => [key, statement[key]]);
  return createHash('sha256').update(JSON.stringify(fields)).digest().subarray(0, 24).toString('base64');
}

/**
 * The otxIds the markers of an answer name, each with the digest of its statement as answered (the
 * first, if one answer holds it twice: another type asks other fields, so digests its own way).
 */
export function markedStatements(data: unknown, markers: ReadonlyMap<string, string>): Map<string, string> {
  const ids = new Map<string, string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else if (typeof value === 'object' && value !== null) {
      const statement = value as Record<string, unknown>;
      let digest: string | undefined;
      for (const [key, child] of Object.entries(statement)) {
        if (markers.has(key)) {
          if (typeof child === 'string' && !ids.has(child)) ids.set(child, (digest ??= digestOf(statement)));
        } else {
          walk(child);
        }
      }
    }
  };
  walk(data);
  return ids;
}

/** The answer with every marker replaced by the PDF under the client's key, in place order, and the digest's fields taken out. */
export function fillPdfs(data: unknown, markers: ReadonlyMap<string, string>, pdfs: ReadonlyMap<string, string | null>): unknown {
  const fill = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(fill);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const responseKey = markers.get(key);
      if (responseKey !== undefined) out[responseKey] = typeof child === 'string' ? (pdfs.get(child) ?? null) : null;
      else if (!key.startsWith(FIELD_PREFIX)) out[key] = fill(child);
    }
    return out;
  };
  return fill(data);
}

/** One upstream document that fetches the PDFs of `otxIds`, 100 per aliased field (the page limit). */
export function pdfFetchDocument(otxIds: readonly string[]): { query: string; variables: Record<string, string[]> } {
  const variables: Record<string, string[]> = {};
  const fields: string[] = [];
  const definitions: string[] = [];
  for (let start = 0, n = 0; start < otxIds.length; start += 100, n++) {
    variables[`ids${n}`] = otxIds.slice(start, start + 100);
    definitions.push(`$ids${n}: [String!]`);
    fields.push(`p${n}: getStatements(otxIds: $ids${n}, first: 100) { statements { nodes { otxId uploaderId pdf } } errors }`);
  }
  return { query: `query SgwStatementPdfs(${definitions.join(', ')}) { ${fields.join(' ')} }`, variables };
}
