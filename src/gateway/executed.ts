/**
 * The executed operation and its root fields, found once per request (useExecutedOperation, first
 * in onExecute) for every plugin after it: the one piece of request state plugins share.
 */
import { separateOperations, type DocumentNode, type FieldNode, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { rootFields, selectedOperation } from './root-fields';

export interface ExecutedOperation {
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly fields: readonly FieldNode[];
  /** The distinct root field names, comma-separated (for logs). */
  readonly names: string;
}

const executed = new WeakMap<Request, ExecutedOperation>();

export function executedOf(request: Request): ExecutedOperation | undefined {
  return executed.get(request);
}

/**
 * Found once per parsed document and operation name (Yoga's parse cache reuses documents), so
 * the same object comes back for the same operation: what is derived from it can be kept on it.
 */
const byDocument = new WeakMap<DocumentNode, Map<string | null, ExecutedOperation | null>>();

export function executedOperation(document: DocumentNode, operationName: string | null | undefined): ExecutedOperation | undefined {
  let byName = byDocument.get(document);
  if (!byName) byDocument.set(document, (byName = new Map<string | null, ExecutedOperation | null>()));
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

const ownDocuments = new WeakMap<ExecutedOperation, DocumentNode | null>();

/**
 * The executed operation alone with the fragments it uses (never a sibling operation), found once
 * per operation: what is sent upstream, and the most a walk over the operation has to visit.
 */
export function operationDocument(executed: ExecutedOperation): DocumentNode | undefined {
  let own = ownDocuments.get(executed);
  if (own === undefined) ownDocuments.set(executed, (own = separateOperations(executed.document)[executed.operation.name?.value ?? ''] ?? null));
  return own ?? undefined;
}

export function useExecutedOperation(): Plugin<{ readonly request: Request }> {
  return {
    onExecute({ args }) {
      const found = executedOperation(args.document as DocumentNode, args.operationName as string | null | undefined);
      if (found) executed.set(args.contextValue.request, found);
    },
  };
}
