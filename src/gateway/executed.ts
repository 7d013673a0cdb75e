/**
 * The executed operation and its root fields, found once per request (useExecutedOperation, first
 * in onExecute) for every plugin after it: the one piece of request state plugins share.
 */
import type { DocumentNode, FieldNode, OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { rootFields, selectedOperation } from './root-fields';

export interface ExecutedOperation {
  readonly operation: OperationDefinitionNode;
  readonly fields: readonly FieldNode[];
  /** The distinct root field names, comma-separated (for logs). */
  readonly names: string;
}

const executed = new WeakMap<Request, ExecutedOperation>();

export function executedOf(request: Request): ExecutedOperation | undefined {
  return executed.get(request);
}

export function useExecutedOperation(): Plugin<{ readonly request: Request }> {
  return {
    onExecute({ args }) {
      const document = args.document as DocumentNode;
      const operation = selectedOperation(document, args.operationName as string | null | undefined);
      if (!operation) return;
      const fields = rootFields(document, operation);
      executed.set(args.contextValue.request, { operation, fields, names: [...new Set(fields.map((field) => field.name.value))].join(',') });
    },
  };
}
