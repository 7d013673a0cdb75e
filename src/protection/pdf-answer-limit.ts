/**
 * The most PDFs one answer may carry. A PDF is tens of KiB, and the upstream renders each one:
 * `getStatements(first: 100) { ... pdf }` under 30 aliases asks for 3,000 of them in one request,
 * which graphql-armor's cost limit cannot see (it has no list multipliers). Here each `pdf` field
 * on a statement counts as many times as the lists around it can hold: a field taking `first`,
 * `last` or a list of ids returns a page of at most PAGE_SIZE items (the upstream's default and
 * largest page), fewer when `first`/`last` or the id list say so; a mutation taking a list of
 * `statements` answers one result per item, however many. Aliases and fragments count,
 * variables are resolved (one the request leaves out by the default its operation declares); the
 * same response path selected twice (merged fields) counts once.
 * Over the limit: QUERY_TOO_COMPLEX (400) before anything runs.
 *
 * The walk may see documents nobody validated (the drop-in front's pass-through): each fragment
 * is counted once and reused wherever it is spread, and the whole walk spends from a WalkBudget,
 * so no document costs more than a few milliseconds.
 */
import {
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { GatewayError, gatewayError } from '../errors';
import { WalkBudget } from './walk-budget';

/** The upstream's page: the default without `first`/`last`, and the most one page holds. */
export const PAGE_SIZE = 100;
/** Five full pages of PDFs per request: a client wanting more pages asks for them in turn. */
export const MAX_PDFS_PER_ANSWER = 500;

const PAGE_ARGUMENTS = ['first', 'last', 'otxIds', 'uploaderIds'];
/** A mutation's list of statements: one result (and PDF) per item, not paged. */
const STATEMENTS_ARGUMENT = 'statements';

/** A variable's value as the operation sees it: the request's, else its declared default. */
type VariableLookup = (name: string) => unknown;

/**
 * A value written in the document as far as a bound needs it, without coercing it (a list of
 * 1,000 inputs is not read item by item): a number, a list (an array whose length counts), null,
 * or undefined.
 */
function literalOf(value: ValueNode | undefined, variable: VariableLookup): unknown {
  if (!value) return undefined;
  switch (value.kind) {
    case Kind.VARIABLE:
      return variable(value.name.value);
    case Kind.INT:
      return Number(value.value);
    case Kind.LIST:
      return value.values;
    case Kind.NULL:
      return null;
    default:
      return value;
  }
}

/**
 * The request's variables, and for one it leaves out the default its operation declares, as
 * execution coerces them: a 600-item default is 600 items though the request sends none. A
 * variable sent as null is null, whatever its default.
 */
function variableLookup(operation: OperationDefinitionNode, variables: Record<string, unknown>): VariableLookup {
  const defaults = new Map<string, ValueNode>();
  for (const definition of operation.variableDefinitions ?? []) if (definition.defaultValue) defaults.set(definition.variable.name.value, definition.defaultValue);
  // A default is a constant: a variable inside one (only in a document nobody validated) is no value.
  const none: VariableLookup = () => undefined;
  return (name) => (Object.hasOwn(variables, name) ? variables[name] : literalOf(defaults.get(name), none));
}

/** An argument's value (see literalOf). */
const argumentOf = (node: FieldNode, name: string, variable: VariableLookup): unknown =>
  literalOf(node.arguments?.find((argument) => argument.name.value === name)?.value, variable);

/** A list argument's length; a single value stands for a list of one (GraphQL's list coercion). */
const lengthOf = (value: unknown): number | undefined => (value === undefined || value === null ? undefined : Array.isArray(value) ? value.length : 1);

/** How many items a field's list can hold, or 1 for a field that is not a page. */
function pageBound(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: VariableLookup): number {
  if (field.args.some((arg) => arg.name === STATEMENTS_ARGUMENT)) return lengthOf(argumentOf(node, STATEMENTS_ARGUMENT, variables)) ?? 0;
  if (!field.args.some((arg) => PAGE_ARGUMENTS.includes(arg.name))) return 1;
  let bound = PAGE_SIZE;
  for (const name of ['first', 'last']) {
    const value = argumentOf(node, name, variables);
    if (typeof value === 'number' && Number.isFinite(value)) bound = Math.min(bound, Math.max(0, Math.floor(value)));
  }
  // Each otxId names one statement at most (an uploaderId may name one per form: not a bound).
  const ids = lengthOf(argumentOf(node, 'otxIds', variables));
  if (ids !== undefined) bound = Math.min(bound, ids);
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

/** Response paths of `pdf` fields (relative to a selection set) → the most PDFs each can hold. */
type PdfCounts = Map<string, number>;
const NONE: PdfCounts = new Map();

/**
 * The PDFs an operation can answer with. Throws QUERY_TOO_COMPLEX (a GatewayError) when the
 * document is too large to count within `budget`.
 */
export function pdfsSelected(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> = {},
  budget: WalkBudget = new WalkBudget(),
): PdfSelection {
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((candidate) => candidate.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return { pdfs: 0, fields: 0 };
  const variable = variableLookup(operation, variables);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  // Each fragment's counts, found once: a fragment spread twice on each of 25 levels is walked 25 times, not 2^25.
  const counted = new Map<string, PdfCounts>();
  const open = new Set<string>();

  const merge = (into: PdfCounts, prefix: string, from: PdfCounts, multiplier: number): void => {
    for (const [path, count] of from) {
      budget.spend(1 + (path.length >> 6));
      const at = prefix + path;
      into.set(at, Math.max(into.get(at) ?? 0, count * multiplier));
    }
  };
  const fragmentCounts = (name: string): PdfCounts => {
    const known = counted.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    // Validation refuses cycles; the guard keeps a walk of an unvalidated document finite.
    if (!fragment || open.has(name)) return NONE;
    const type = schema.getType(fragment.typeCondition.name.value);
    open.add(name);
    const counts = type ? walk(fragment.selectionSet, type) : NONE;
    open.delete(name);
    counted.set(name, counts);
    return counts;
  };
  const walk = (selectionSet: SelectionSetNode, parent: GraphQLNamedType): PdfCounts => {
    const counts: PdfCounts = new Map();
    for (const selection of selectionSet.selections) {
      budget.spend();
      if (selection.kind === Kind.FIELD) {
        if (!isObjectType(parent) && !isInterfaceType(parent)) continue;
        const field = parent.getFields()[selection.name.value];
        if (!field) continue;
        const key = `.${selection.alias?.value ?? selection.name.value}`;
        if (field.name === 'pdf' && isStatement(parent)) counts.set(key, Math.max(counts.get(key) ?? 0, 1));
        if (selection.selectionSet) merge(counts, key, walk(selection.selectionSet, getNamedType(field.type)), pageBound(field, selection, variable));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (type) merge(counts, '', walk(selection.selectionSet, type), 1);
      } else {
        merge(counts, '', fragmentCounts(selection.name.value), 1);
      }
    }
    return counts;
  };
  const counts = walk(operation.selectionSet, root);
  let total = 0;
  for (const count of counts.values()) total += count;
  return { pdfs: total, fields: counts.size };
}

/** QUERY_TOO_COMPLEX for an operation over `maxPdfs`, or one too large to count; else undefined. */
export function pdfAnswerRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
  maxPdfs: number = MAX_PDFS_PER_ANSWER,
): { readonly refusal?: GatewayError; readonly selection?: PdfSelection } {
  let selection: PdfSelection;
  try {
    selection = pdfsSelected(schema, document, operationName, variables);
  } catch (error) {
    return { refusal: error instanceof GatewayError ? error : gatewayError('QUERY_TOO_COMPLEX') };
  }
  if (selection.pdfs <= maxPdfs) return { selection };
  return { selection, refusal: gatewayError('QUERY_TOO_COMPLEX', `The query can answer with up to ${selection.pdfs} PDFs; at most ${maxPdfs} are allowed per request.`) };
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
      const { refusal, selection } = pdfAnswerRefusal(args.schema as GraphQLSchema, document, args.operationName as string | null | undefined, (args.variableValues ?? {}) as Record<string, unknown>, maxPdfs);
      if (selection?.fields === 0 && document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length === 1) withoutPdfs.add(document);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
  };
}
