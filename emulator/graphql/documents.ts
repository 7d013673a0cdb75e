/**
 * Parsed and validated documents, cached by query text so that a repeated query (the common case
 * for API clients) costs one Map lookup before execution. Long documents (statements written inline
 * into an add mutation) are not kept.
 */
import {
  GraphQLError, Kind, parse, validate, type DocumentNode, type FragmentDefinitionNode,
  type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode,
} from 'graphql';

const CACHE_LIMIT = 500;
const CACHEABLE_LENGTH = 20_000;
/** Root fields that need no credential: confirming an account, and introspection. */
const ANONYMOUS_FIELDS: ReadonlySet<string> = new Set(['confirmRegistration', '__schema', '__type', '__typename']);

export interface PreparedDocument {
  readonly document: DocumentNode | null;
  readonly errors: readonly GraphQLError[];
  /** Root field names of each operation, by operation name ('' for an anonymous one). */
  readonly rootFields: ReadonlyMap<string, readonly string[]>;
}

function rootFieldsOf(set: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, seen = new Set<string>()): string[] {
  return set.selections.flatMap((sel) => {
    if (sel.kind === Kind.FIELD) return [sel.name.value];
    if (sel.kind === Kind.INLINE_FRAGMENT) return rootFieldsOf(sel.selectionSet, fragments, seen);
    const fragment = fragments.get(sel.name.value);
    if (!fragment || seen.has(sel.name.value)) return [];
    seen.add(sel.name.value);
    return rootFieldsOf(fragment.selectionSet, fragments, seen);
  });
}

/** parse() throws GraphQLErrors for syntax, but a RangeError when a document nests too deeply. */
function asGraphqlError(error: unknown): GraphQLError {
  return error instanceof GraphQLError ? error : new GraphQLError('The document nests too deeply to be parsed');
}

function prepare(schema: GraphQLSchema, query: string): PreparedDocument {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    return { document: null, errors: [asGraphqlError(error)], rootFields: new Map() };
  }
  const fragments = new Map(
    document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  const rootFields = new Map(
    document.definitions
      .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
      .map((op) => [op.name?.value ?? '', rootFieldsOf(op.selectionSet, fragments)]),
  );
  let errors: readonly GraphQLError[];
  try {
    errors = validate(schema, document);
  } catch (error) {
    errors = [asGraphqlError(error)];
  }
  return { document, errors, rootFields };
}

export class DocumentCache {
  private readonly cache = new Map<string, PreparedDocument>();

  constructor(private readonly schema: GraphQLSchema) {}

  get(query: string): PreparedDocument {
    const hit = this.cache.get(query);
    if (hit) return hit;
    const prepared = prepare(this.schema, query);
    if (query.length <= CACHEABLE_LENGTH) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(query, prepared);
    }
    return prepared;
  }
}

/** The root fields the request will run: those of the named operation, or of the only one. */
export function selectedRootFields(prepared: PreparedDocument, operationName: string | null | undefined): readonly string[] {
  if (operationName) return prepared.rootFields.get(operationName) ?? [];
  return prepared.rootFields.size === 1 ? [...prepared.rootFields.values()][0] ?? [] : [];
}

export function needsCredential(rootFields: readonly string[]): boolean {
  return rootFields.length === 0 || rootFields.some((f) => !ANONYMOUS_FIELDS.has(f));
}
