/**
 * Which trusted documents (TRUSTED_DOCUMENTS_FILE: exactly what the first-party frontends send)
 * the live upstream schema would refuse. A schema diff says what changed; this says whom it hits,
 * exactly, where a check against sampled traffic would only guess (and say nothing without
 * traffic). Each document is validated as the upstream would see its part of it: the root fields
 * the gateway answers itself (`login`, `session`, ... of .meshrc.ts's additional type definitions)
 * are left out, with the fragments and variables only they used.
 */
import {
  Kind, validate, visit, type DefinitionNode, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionNode, type SelectionSetNode,
} from 'graphql';
import type { TrustedDocument } from '../config';

export interface InvalidDocument {
  /** The document's SHA-256 (its id in TRUSTED_DOCUMENTS_FILE). */
  readonly id: string;
  /** Its operations' names, comma-separated (`(anonymous)` for one without). */
  readonly name: string;
  /** What the upstream's validation would answer (the first errors). */
  readonly message: string;
}

/** Messages kept per document: the first few say what broke; a long list says nothing more. */
const MAX_MESSAGES = 3;

/** The root fields of the served upstream schema, by operation type: anything else at the root is the gateway's. */
function upstreamRoots(served: GraphQLSchema): Readonly<Record<OperationDefinitionNode['operation'], ReadonlySet<string>>> {
  const fields = (type: ReturnType<GraphQLSchema['getQueryType']>) => new Set(type ? Object.keys(type.getFields()) : []);
  return { query: fields(served.getQueryType()), mutation: fields(served.getMutationType()), subscription: fields(served.getSubscriptionType()) };
}

/** The root selection without the gateway's own fields (in root inline fragments too); `__typename` stays. */
function upstreamSelection(set: SelectionSetNode, upstream: ReadonlySet<string>): SelectionSetNode {
  const selections = set.selections.flatMap((selection): SelectionNode[] => {
    if (selection.kind === Kind.FIELD) return selection.name.value.startsWith('__') || upstream.has(selection.name.value) ? [selection] : [];
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const inner = upstreamSelection(selection.selectionSet, upstream);
      return inner.selections.length ? [{ ...selection, selectionSet: inner }] : [];
    }
    return [selection];
  });
  return { ...set, selections };
}

/** Names used in a node: fragment spreads and variables. */
function usesOf(node: DefinitionNode): { readonly fragments: Set<string>; readonly variables: Set<string> } {
  const fragments = new Set<string>();
  const variables = new Set<string>();
  visit(node, {
    FragmentSpread: (spread) => void fragments.add(spread.name.value),
    Variable: (variable) => void variables.add(variable.name.value),
    // A definition's own names are declarations, not uses.
    VariableDefinition: () => false,
  });
  return { fragments, variables };
}

/** The part of `document` the upstream would be sent, or undefined when it sends nothing upstream. */
export function upstreamPart(document: DocumentNode, served: GraphQLSchema): DocumentNode | undefined {
  const roots = upstreamRoots(served);
  const operations = document.definitions
    .filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)
    .map((operation) => ({ ...operation, selectionSet: upstreamSelection(operation.selectionSet, roots[operation.operation]) }))
    .filter((operation) => operation.selectionSet.selections.length > 0);
  if (!operations.length) return undefined;
  // A fragment on a root type (`fragment F on Query`) loses the gateway's fields as operations do.
  const rootOf = new Map([[served.getQueryType()?.name, roots.query], [served.getMutationType()?.name, roots.mutation]]);
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => {
    const root = rootOf.get(d.typeCondition.name.value);
    return [d.name.value, root ? { ...d, selectionSet: upstreamSelection(d.selectionSet, root) } : d];
  }));
  // The fragments still reached, and each operation's variables still used (through them too).
  const reached = (from: Iterable<string>): Set<string> => {
    const seen = new Set<string>();
    const queue = [...from];
    for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
      const fragment = fragments.get(name);
      if (seen.has(name) || !fragment) continue;
      seen.add(name);
      queue.push(...usesOf(fragment).fragments);
    }
    return seen;
  };
  const kept = operations.map((operation) => {
    const own = usesOf({ ...operation, variableDefinitions: [] });
    const spreadFragments = reached(own.fragments);
    const fragmentVariables = [...spreadFragments].flatMap((name) => {
      const fragment = fragments.get(name);
      return fragment ? [...usesOf(fragment).variables] : [];
    });
    const used = new Set([...own.variables, ...fragmentVariables]);
    return { operation: { ...operation, variableDefinitions: (operation.variableDefinitions ?? []).filter((definition) => used.has(definition.variable.name.value)) }, spreadFragments };
  });
  const allFragments = new Set(kept.flatMap(({ spreadFragments }) => [...spreadFragments]));
  return {
    kind: Kind.DOCUMENT,
    definitions: [...kept.map(({ operation }) => operation), ...[...fragments.values()].filter((fragment) => allFragments.has(fragment.name.value))],
  };
}

/** Each trusted document the live schema would refuse, by id; the others pass. */
export function refusedDocuments(documents: Iterable<Pick<TrustedDocument, 'id' | 'document'>>, served: GraphQLSchema, live: GraphQLSchema): InvalidDocument[] {
  const refused: InvalidDocument[] = [];
  for (const { id, document } of documents) {
    const part = upstreamPart(document, served);
    if (!part) continue;
    const errors = validate(live, part);
    if (!errors.length) continue;
    const names = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION).map((op) => op.name?.value ?? '(anonymous)');
    const more = errors.length > MAX_MESSAGES ? ` (and ${errors.length - MAX_MESSAGES} more)` : '';
    refused.push({ id, name: names.join(', '), message: errors.slice(0, MAX_MESSAGES).map((error) => error.message).join(' ') + more });
  }
  return refused.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
