/**
 * The trusted documents the hot path (src/http/hot-path.ts) may answer without Yoga: queries whose
 * plan forwards them as one upstream call (no gateway field, no PDF), that read no statements (the
 * read cache answers those), of one operation. Each becomes hot only once the Yoga pipeline has
 * executed it (`confirm`, from useFastPath): reaching execution means its validation and every
 * query limit passed for that document, and both are decided by the document alone (no PDF, so no
 * per-answer bound that reads the variables). Until then, and for anything else, Yoga answers.
 */
import { Kind, OperationTypeNode, type DocumentNode } from 'graphql';
import { isCachedRead } from '../cache/use-read-cache';
import type { DocumentFacts, ExecutedOperation } from '../request/executed';
import type { DocumentPlans, ForwardPlan } from './plans';

export interface HotDocument {
  readonly document: DocumentNode;
  readonly executed: ExecutedOperation;
  readonly plan: ForwardPlan;
  /** The operation's name, if it has one (a request may name it, or no operation). */
  readonly operationName: string | undefined;
}

export class HotDocuments {
  readonly #candidates = new Map<string, HotDocument>();
  readonly #confirmed = new WeakSet<DocumentNode>();

  /** `trusted`: TRUSTED_DOCUMENTS_FILE's documents by id; plans must know the upstream's schema. */
  constructor(trusted: ReadonlyMap<string, { readonly document: DocumentNode }>, plans: DocumentPlans, documents: DocumentFacts) {
    for (const [id, { document }] of trusted) {
      const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
      if (operations.length !== 1) continue;
      const executed = documents.executedOperation(document, undefined);
      const plan = executed && plans.planOf(executed);
      if (!executed || !plan || plan.kind !== OperationTypeNode.QUERY) continue;
      if (executed.fields.some((field) => isCachedRead(field.name.value))) continue;
      this.#candidates.set(id, { document, executed, plan, operationName: executed.operation.name?.value });
    }
  }

  /** How many documents may become hot. */
  get size(): number {
    return this.#candidates.size;
  }

  /** The Yoga pipeline executed this document: it may be answered on the hot path from now on. */
  confirm(document: DocumentNode): void {
    if (!this.#confirmed.has(document)) this.#confirmed.add(document);
  }

  /** The hot document with this id (lowercase hex), once confirmed. */
  get(id: string): HotDocument | undefined {
    const found = this.#candidates.get(id);
    return found && this.#confirmed.has(found.document) ? found : undefined;
  }
}
