/**
 * The most PDFs one answer may carry. A PDF is tens of KiB, and the upstream renders each one:
 * `getStatements(first: 100) { ... pdf }` under 30 aliases asks for 3,000 of them in one request,
 * which graphql-armor's cost limit cannot see (it has no list multipliers). Here each `pdf` field
 * on a statement counts as many times as the lists around it can hold: a field taking `first`,
 * `last` or a list of ids returns a page of at most PAGE_SIZE items (the upstream's default and
 * largest page), fewer when `first`/`last` or the id list say so. Aliases and fragments count,
 * variables are resolved; the same response path selected twice (merged fields) counts once.
 * Over the limit: QUERY_TOO_COMPLEX (400) before anything runs.
 */
import {
  getArgumentValues,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors';

/** The upstream's page: the default without `first`/`last`, and the most one page holds. */
export const PAGE_SIZE = 100;
/** Five full pages of PDFs per request: a client wanting more pages asks for them in turn. */
export const MAX_PDFS_PER_ANSWER = 500;

const LIST_ARGUMENTS = ['first', 'last', 'otxIds', 'uploaderIds'];

/** How many items a field's list can hold, or 1 for a field that is not a page. */
function pageBound(field: GraphQLField<unknown, unknown>, node: Parameters<typeof getArgumentValues>[1], variables: Record<string, unknown>): number {
  if (!field.args.some((arg) => LIST_ARGUMENTS.includes(arg.name))) return 1;
  let values: Record<string, unknown>;
  try {
    values = getArgumentValues(field, node, variables);
  } catch {
    return PAGE_SIZE;
  }
  let bound = PAGE_SIZE;
  for (const name of ['first', 'last']) {
    const value = values[name];
    if (typeof value === 'number') bound = Math.min(bound, Math.max(0, value));
  }
  // Each otxId names one statement at most (an uploaderId may name one per form: not a bound).
  if (Array.isArray(values.otxIds)) bound = Math.min(bound, values.otxIds.length);
  return bound;
}

function isStatement(type: GraphQLNamedType): boolean {
  return (isObjectType(type) || isInterfaceType(type)) && 'otxId' in type.getFields() && 'pdf' in type.getFields();
}

export interface PdfSelection {
  /** The PDFs the operation can answer with at most, given its variables. */
  readonly pdfs: number;
  /** Distinct `pdf` response paths (0: none, whatever the variables). */
  readonly fields: number;
}

export function pdfsSelected(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: Record<string, unknown> = {}): PdfSelection {
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((candidate) => candidate.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return { pdfs: 0, fields: 0 };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  // Response path of each `pdf` → how many PDFs it can hold.
  const pdfs = new Map<string, number>();

  const walk = (selectionSet: SelectionSetNode, parent: GraphQLNamedType, multiplier: number, path: string, inFragments: readonly string[]): void => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!isObjectType(parent) && !isInterfaceType(parent)) continue;
        const field = parent.getFields()[selection.name.value];
        if (!field) continue;
        const at = `${path}.${selection.alias?.value ?? selection.name.value}`;
        if (field.name === 'pdf' && isStatement(parent)) pdfs.set(at, Math.max(pdfs.get(at) ?? 0, multiplier));
        if (selection.selectionSet) walk(selection.selectionSet, getNamedType(field.type), multiplier * pageBound(field, selection, variables), at, inFragments);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (type) walk(selection.selectionSet, type, multiplier, path, inFragments);
      } else {
        const fragment = fragments.get(selection.name.value);
        // Validation refuses cycles; the guard keeps a walk of an unvalidated document finite.
        if (!fragment || inFragments.includes(fragment.name.value)) continue;
        const type = schema.getType(fragment.typeCondition.name.value);
        if (type) walk(fragment.selectionSet, type, multiplier, path, [...inFragments, fragment.name.value]);
      }
    }
  };
  walk(operation.selectionSet, root, 1, '', []);
  let total = 0;
  for (const count of pdfs.values()) total += count;
  return { pdfs: total, fields: pdfs.size };
}

export interface PdfAnswerLimitOptions {
  /** Most PDFs per request (default MAX_PDFS_PER_ANSWER). */
  readonly maxPdfs?: number;
}

export function usePdfAnswerLimit({ maxPdfs = MAX_PDFS_PER_ANSWER }: PdfAnswerLimitOptions = {}): Plugin {
  // Most documents select no PDF whatever their variables: remembered, they are not walked again.
  const withoutPdfs = new WeakSet<DocumentNode>();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const document = args.document as DocumentNode;
      if (withoutPdfs.has(document)) return;
      const { pdfs, fields } = pdfsSelected(args.schema as GraphQLSchema, document, args.operationName as string | null | undefined, (args.variableValues ?? {}) as Record<string, unknown>);
      if (fields === 0 && document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length === 1) withoutPdfs.add(document);
      if (pdfs > maxPdfs) {
        setResultAndStopExecution({ errors: [gatewayError('QUERY_TOO_COMPLEX', `The query can answer with up to ${pdfs} PDFs; at most ${maxPdfs} are allowed per request.`)] });
      }
    },
  };
}
