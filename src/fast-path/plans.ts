/**
 * A plan per (document, operation name), compiled once after the document was parsed, validated
 * and limited, and kept for as long as the parsed document is (a WeakMap on its executed
 * operation, request/executed.ts, which lives with the DocumentNode: Yoga's parse cache, bounded
 * in bytes, and the trusted documents hold the documents, so the plans need no bound of their own). A plan says whether the operation can be sent upstream as it is:
 * every root field is the upstream's own (not `login`, `logout`, `session`, nor a field the
 * gateway answers itself such as `statementDefinitions`), it is a query or a mutation, and it
 * selects no `pdf` (the PDF cache rewrites those answers). Everything else keeps Mesh's execution.
 */
import { isNonNullType, Kind, OperationTypeNode, print, type DocumentNode, type FieldNode, type GraphQLObjectType, type GraphQLSchema, type VariableDefinitionNode } from 'graphql';
import type { DocumentFacts, ExecutedOperation } from '../request/executed';

/**
 * Upstream root fields the gateway answers itself (additional-resolvers/): never forwarded.
 * test/fast-path/plans.unit.test.ts checks this list against the resolvers.
 */
export const GATEWAY_RESOLVED_FIELDS: ReadonlySet<string> = new Set(['statementDefinitions']);

/** One root field of a forwarded operation, as the client named it. */
export interface PlannedRoot {
  /** Its response key (alias or name). */
  readonly key: string;
  readonly name: string;
  /** Non-null in the schema: a failure nulls the whole `data`. */
  readonly nonNull: boolean;
  /** The field as written (its @skip/@include decide whether a failure names it). */
  readonly node: FieldNode;
}

export interface ForwardPlan {
  readonly kind: OperationTypeNode.QUERY | OperationTypeNode.MUTATION;
  /** Its variables, coerced before the call as graphql-js's execution would (the errors are the same). */
  readonly variableDefinitions: readonly VariableDefinitionNode[];
  /**
   * The document sent upstream, printed once: the selected operation and the fragments it uses,
   * never its siblings (they may name gateway fields, or hold literals meant for the gateway).
   */
  readonly query: string;
  /** The declared variables' names: only those are sent upstream. */
  readonly variableNames: readonly string[];
  /** Every root response key, __typename's included: an answer with others is not passed on as it is. */
  readonly responseKeys: ReadonlySet<string>;
  readonly roots: readonly PlannedRoot[];
  /** A bounded label for the upstream call's logs and metrics: the first root field's name. */
  readonly label: string;
}

/** The root fields of the upstream's own schema, by operation type. */
interface UpstreamRoots {
  readonly query: GraphQLObjectType | undefined;
  readonly mutation: GraphQLObjectType | undefined;
}

export class DocumentPlans {
  private upstream: UpstreamRoots | undefined;
  /** On the executed operation (request/executed.ts), itself found once per document and name. */
  private readonly plans = new WeakMap<ExecutedOperation, ForwardPlan | null>();

  constructor(private readonly documents: DocumentFacts) {}

  /** The upstream source's schema (Mesh's raw source): until it is known, nothing is forwarded. */
  learnUpstream(schema: GraphQLSchema): void {
    this.upstream = { query: schema.getQueryType() ?? undefined, mutation: schema.getMutationType() ?? undefined };
  }

  /** Compiles the plans of every operation of each document now (trusted documents, at start). */
  precompile(documents: Iterable<DocumentNode>): number {
    let count = 0;
    for (const document of documents) {
      for (const definition of document.definitions) {
        if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
        const executed = this.documents.executedOperation(document, definition.name?.value ?? null);
        if (executed) this.planOf(executed);
        count++;
      }
    }
    return count;
  }

  /** The forwarding plan of this operation, or undefined when Mesh must execute it. */
  planOf(executed: ExecutedOperation): ForwardPlan | undefined {
    if (!this.upstream) return undefined;
    let plan = this.plans.get(executed);
    if (plan === undefined) this.plans.set(executed, (plan = this.compile(this.upstream, executed) ?? null));
    return plan ?? undefined;
  }

  private compile(upstream: UpstreamRoots, executed: ExecutedOperation): ForwardPlan | undefined {
    const { document, operation, fields: selected } = executed;
    const kind = operation.operation;
    if (kind !== OperationTypeNode.QUERY && kind !== OperationTypeNode.MUTATION) return undefined;
    const type = kind === OperationTypeNode.QUERY ? upstream.query : upstream.mutation;
    if (!type) return undefined;
    const fields = type.getFields();
    const roots: PlannedRoot[] = [];
    const responseKeys = new Set<string>();
    for (const field of selected) {
      const name = field.name.value;
      responseKeys.add(field.alias?.value ?? name);
      if (name === '__typename') continue;
      const upstreamField = fields[name];
      if (!upstreamField || GATEWAY_RESOLVED_FIELDS.has(name)) return undefined;
      roots.push({ key: field.alias?.value ?? name, name, nonNull: isNonNullType(upstreamField.type), node: field });
    }
    const first = roots[0];
    if (!first) return undefined;
    if (this.documents.selectsPdf(document)) return undefined;
    const own = this.documents.operationDocument(executed);
    if (!own) return undefined;
    const variableDefinitions = operation.variableDefinitions ?? [];
    return {
      kind, variableDefinitions, query: print(own), roots, label: first.name, responseKeys,
      variableNames: variableDefinitions.map((definition) => definition.variable.name.value),
    };
  }
}
