/**
 * The trusted documents the hot path (src/http/hot-path.ts) may answer without Yoga: queries whose
 * plan forwards them as one upstream call (no gateway field, no PDF), of one operation (statement
 * reads through the read cache's own steps, as the pipeline's). Each becomes hot only once the Yoga pipeline has
 * executed it (`confirm`, from useFastPath): reaching execution means its validation and every
 * query limit passed for that document, and both are decided by the document alone (no PDF, so no
 * per-answer bound that reads the variables). Until then, and for anything else, Yoga answers.
 *
 * The same document sent as its text (the manifest's exact text, which is what its id hashes) is
 * the same document, but reaches Yoga another way (the text's length and tokens are limited, a
 * TRUSTED_DOCUMENTS_ONLY gateway refuses texts from browsers): the text form becomes hot only once
 * the pipeline has run that text, and never where TRUSTED_DOCUMENTS_ONLY is set.
 */
import { Kind, OperationTypeNode, type DocumentNode } from 'graphql';
import type { DocumentFacts, ExecutedOperation } from '../request/executed';
import type { DocumentPlans, ForwardPlan } from './plans';

export interface HotDocument {
  readonly id: string;
  readonly document: DocumentNode;
  readonly executed: ExecutedOperation;
  readonly plan: ForwardPlan;
  /** The operation's name, if it has one (a request may name it, or no operation). */
  readonly operationName: string | undefined;
}

export class HotDocuments {
  readonly #candidates = new Map<string, HotDocument>();
  readonly #confirmed = new WeakSet<DocumentNode>();
  /** The candidates by their manifest text, when texts may be hot. */
  readonly #byText = new Map<string, HotDocument>();
  readonly #confirmedTexts = new Set<string>();

  /**
   * `trusted`: TRUSTED_DOCUMENTS_FILE's documents by id; plans must know the upstream's schema.
   * `texts`: whether their texts may be hot too (not under TRUSTED_DOCUMENTS_ONLY).
   */
  constructor(trusted: ReadonlyMap<string, { readonly document: DocumentNode; readonly text: string }>, plans: DocumentPlans, documents: DocumentFacts, { texts }: { readonly texts: boolean }) {
    for (const [id, { document, text }] of trusted) {
      const operations = document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
      if (operations.length !== 1) continue;
      const executed = documents.executedOperation(document, undefined);
      const plan = executed && plans.planOf(executed);
      if (!executed || !plan || plan.kind !== OperationTypeNode.QUERY) continue;
      const entry = { id, document, executed, plan, operationName: executed.operation.name?.value };
      this.#candidates.set(id, entry);
      if (texts) this.#byText.set(text, entry);
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

  /** The pipeline executed a request that sent this text: if it is a candidate's, its text form is hot from now on. */
  confirmText(text: string): void {
    if (!this.#confirmedTexts.has(text) && this.#byText.has(text)) this.#confirmedTexts.add(text);
  }

  /** The hot document whose text this is, once its text form is confirmed. */
  byText(text: string): HotDocument | undefined {
    return this.#confirmedTexts.has(text) ? this.#byText.get(text) : undefined;
  }

  /** The hot document with this id (lowercase hex), once confirmed. */
  get(id: string): HotDocument | undefined {
    const found = this.#candidates.get(id);
    return found && this.#confirmed.has(found.document) ? found : undefined;
  }
}
