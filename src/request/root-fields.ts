import { Kind, visit, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

/**
 * The gateway's session fields: each starts or ends browser sessions, so it runs alone in its
 * operation (session/use-lone-session-fields.ts), is never kept under an Idempotency-Key
 * (idempotency/), and drops no cache (cache/use-cache-invalidation.ts).
 */
export const SESSION_FIELDS: ReadonlySet<string> = new Set(['login', 'logout', 'endSession', 'logoutEverywhere']);

/** The selected operation of a document, as graphql-js picks it. */
export function selectedOperation(document: DocumentNode, operationName?: string | null): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  // As graphql-js: any non-null name (even "") must match one.
  if (operationName != null) return operations.find((operation) => operation.name?.value === operationName);
  return operations.length === 1 ? operations[0] : undefined;
}

/** The root fields an operation selects, through fragments. */
export function rootFields(document: DocumentNode, operation: OperationDefinitionNode): FieldNode[] {
  const fields: FieldNode[] = [];
  // Each fragment is visited once (a spread again adds nothing), found in a map: linear in the document.
  const fragments = new Map<string, FragmentDefinitionNode | null>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(definition.name.value)) fragments.set(definition.name.value, definition);
  const visit = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else {
        const fragment = fragments.get(selection.name.value);
        fragments.set(selection.name.value, null);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  visit(operation.selectionSet);
  return fields;
}

/**
 * Whether a document selects a field named `pdf` anywhere (fragments and aliases included), each
 * time it is asked: DocumentFacts (executed.ts) keeps the answer per document.
 */
export function selectsPdf(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === 'pdf') found = true;
    },
  });
  return found;
}
