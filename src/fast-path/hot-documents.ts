/**
 * The documents the hot path (src/hot-path/hot-path.ts) may answer without Yoga: queries of one
 * operation whose plan forwards them as one upstream call (no gateway field, no PDF; statement reads
 * go through the read cache's own steps, as in the pipeline). A document becomes hot only once the
 * Yoga pipeline has executed it in the same form, past every check (use-hot-documents.ts says
 * where, and why that means its validation and every query limit passed: for these documents all
 * of them are decided by the document alone, no PDF, so no per-answer bound that reads the
 * variables). Until then, and for anything else, Yoga answers.
 *
 * - By id: a trusted document (TRUSTED_DOCUMENTS_FILE), once the pipeline has run it by id.
 * - By text: a query text the pipeline has run (an upstream-only query, or one that selects only
 *   `statementDefinitions`, which the definitions answers serve), exactly that text (its length and tokens were
 *   limited when it was parsed), kept while there is room: at most MAX_TEXTS texts of at most
 *   MAX_TEXT_CHARACTERS in all, the oldest forgotten first (it is then the pipeline's again until it
 *   runs once more). Never under TRUSTED_DOCUMENTS_ONLY, which refuses browsers' texts.
 */
import { Kind, OperationTypeNode, type DocumentNode } from 'graphql';
import type { DocumentFacts, ExecutedOperation } from '../request/executed';
import type { DocumentPlans, ForwardPlan } from './plans';

/** Query texts kept hot at once, and their total length. */
export const MAX_TEXTS = 256;
export const MAX_TEXT_CHARACTERS = 262_144;
/**
 * The longest body the hot path reads (src/hot-path/hot-body.ts), and so the longest text worth
 * keeping: a longer one could never be answered from here, and would only hold its parsed document
 * past the parse cache's bound (protection/parse-caches.ts). With the totals above the texts' documents
 * stay within about 20 MB at the parse cache's estimate of 320 bytes a node.
 */
export const MAX_HOT_BODY = 4_096;

export interface HotDocument {
  readonly document: DocumentNode;
  readonly executed: ExecutedOperation;
  /** How it is answered: one upstream call, or the definitions answers (a text selecting only `statementDefinitions`). */
  readonly plan: ForwardPlan | 'definitions';
  /** The operation's name, if it has one (a request may name it, or no operation). */
  readonly operationName: string | undefined;
}

/** The hot document of an executed operation and its plan, if it may be one. */
function hotDocumentOf(executed: ExecutedOperation, plan: ForwardPlan | 'definitions' | undefined): HotDocument | undefined {
  if (!plan || (plan !== 'definitions' && plan.kind !== OperationTypeNode.QUERY)) return undefined;
  const operations = executed.document.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1 || operations[0] !== executed.operation) return undefined;
  return { document: executed.document, executed, plan, operationName: executed.operation.name?.value };
}

export class HotDocuments {
  readonly #candidates = new Map<string, HotDocument>();
  readonly #trustedDocuments = new Set<DocumentNode>();
  readonly #confirmed = new WeakSet<DocumentNode>();
  readonly #texts = new Map<string, HotDocument>();
  #textCharacters = 0;
  readonly #allowTexts: boolean;

  /**
   * `trusted`: TRUSTED_DOCUMENTS_FILE's documents by id; plans must know the upstream's schema.
   * `texts`: whether query texts may be hot (not under TRUSTED_DOCUMENTS_ONLY).
   */
  constructor(trusted: ReadonlyMap<string, { readonly document: DocumentNode }>, plans: DocumentPlans, documents: DocumentFacts, { texts }: { readonly texts: boolean }) {
    this.#allowTexts = texts;
    for (const [id, { document }] of trusted) {
      const executed = documents.executedOperation(document, undefined);
      const entry = executed && hotDocumentOf(executed, plans.planOf(executed));
      if (!entry) continue;
      this.#candidates.set(id, entry);
      this.#trustedDocuments.add(document);
    }
  }

  /** Whether any request can be hot: a trusted document that may be, or texts. */
  get possible(): boolean {
    return this.#candidates.size > 0 || this.#allowTexts;
  }

  /** How many query texts are hot now. */
  get texts(): number {
    return this.#texts.size;
  }

  /**
   * The pipeline executed this operation with this plan: if it may be hot, its document is from now
   * on (by id), and so is `text`, the query text it was parsed from, when the request sent one.
   */
  executed(executed: ExecutedOperation, plan: ForwardPlan | 'definitions', text: string | undefined): void {
    if (this.#trustedDocuments.has(executed.document) && !this.#confirmed.has(executed.document)) this.#confirmed.add(executed.document);
    // A trusted document's own object came by id: Yoga's placeholder text for it is no client's text.
    if (!this.#allowTexts || text === undefined || this.#trustedDocuments.has(executed.document) || this.#texts.has(text)) return;
    const entry = hotDocumentOf(executed, plan);
    if (!entry || text.length > MAX_HOT_BODY) return;
    this.#texts.set(text, entry);
    this.#textCharacters += text.length;
    for (const [oldest] of this.#texts) {
      if (this.#texts.size <= MAX_TEXTS && this.#textCharacters <= MAX_TEXT_CHARACTERS) break;
      this.#texts.delete(oldest);
      this.#textCharacters -= oldest.length;
    }
  }

  /** The hot document this text was parsed into, once the pipeline has run the text. */
  byText(text: string): HotDocument | undefined {
    return this.#texts.get(text);
  }

  /** The hot trusted document with this id (lowercase hex), once confirmed. */
  get(id: string): HotDocument | undefined {
    const found = this.#candidates.get(id);
    return found && this.#confirmed.has(found.document) ? found : undefined;
  }
}
