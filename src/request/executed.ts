/**
 * The executed operation and its root fields, found once per request (useExecutedOperation, first
 * in onExecute) for every plugin after it: the one piece of request state plugins share.
 */
import { separateOperations, type DocumentNode, type FieldNode, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RequestSlot } from './slot';
import { rootFields, selectedOperation, selectsPdf } from './root-fields';

export interface ExecutedOperation {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly fields: readonly FieldNode[];
  /** The distinct root field names, comma-separated (for logs). */
  readonly names: string;
}

/**
 * What is found once per parsed document (Yoga's parse cache reuses documents) and kept for as
 * long as the document is, one per gateway: the same executed operation comes back for the same
 * document and operation name, so what is derived from it can be kept on it.
 */
export class DocumentFacts {
  readonly #operations = new WeakMap<DocumentNode, Map<string | null, ExecutedOperation | null>>();
  readonly #ownDocuments = new WeakMap<ExecutedOperation, DocumentNode | null>();
  readonly #pdfSelections = new WeakMap<DocumentNode, boolean>();

  executedOperation(document: DocumentNode, operationName: string | null | undefined): ExecutedOperation | undefined {
    let byName = this.#operations.get(document);
    if (!byName) this.#operations.set(document, (byName = new Map<string | null, ExecutedOperation | null>()));
    const key = operationName ?? null;
    let found = byName.get(key);
    if (found === undefined) {
      const operation = selectedOperation(document, operationName);
      const fields = operation ? rootFields(document, operation) : [];
      found = operation ? { document, operation, fields, names: [...new Set(fields.map((field) => field.name.value))].join(',') } : null;
      byName.set(key, found);
    }
    return found ?? undefined;
  }

  /**
   * The executed operation alone with the fragments it uses (never a sibling operation), found once
   * per operation: what is sent upstream, and the most a walk over the operation has to visit.
   */
  operationDocument(executed: ExecutedOperation): DocumentNode | undefined {
    let own = this.#ownDocuments.get(executed);
    if (own === undefined) this.#ownDocuments.set(executed, (own = separateOperations(executed.document)[executed.operation.name?.value ?? ''] ?? null));
    return own ?? undefined;
  }

  /**
   * Whether a document selects a field named `pdf` anywhere (fragments and aliases included):
   * those reads belong to the PDF cache, not the read cache or the fast path.
   */
  selectsPdf(document: DocumentNode): boolean {
    let found = this.#pdfSelections.get(document);
    if (found === undefined) this.#pdfSelections.set(document, (found = selectsPdf(document)));
    return found;
  }
}

export interface ExecutedOperationOptions {
  /** Where the executed operation is kept for the plugins after this one. */
  readonly operations: RequestSlot<ExecutedOperation>;
  readonly documents: DocumentFacts;
}

export function useExecutedOperation({ operations, documents }: ExecutedOperationOptions): Plugin<{ readonly request: Request }> {
  return {
    onExecute({ args }) {
      const found = documents.executedOperation(args.document as DocumentNode, args.operationName as string | null | undefined);
      if (found) operations.set(args.contextValue.request, found);
    },
  };
}
