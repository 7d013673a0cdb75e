import { Kind, visit, type DocumentNode, type FieldNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

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
  const seenFragments = new Set<string>();
  const visit = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!seenFragments.has(selection.name.value)) {
        seenFragments.add(selection.name.value);
        const fragment = document.definitions.find((definition) => definition.kind === Kind.FRAGMENT_DEFINITION && definition.name.value === selection.name.value);
        if (fragment?.kind === Kind.FRAGMENT_DEFINITION) visit(fragment.selectionSet);
      }
    }
  };
  visit(operation.selectionSet);
  return fields;
}

/** Per parsed document (Yoga's parse cache reuses them): whether it selects `pdf` anywhere. */
const pdfSelections = new WeakMap<DocumentNode, boolean>();

/**
 * Whether a document selects a field named `pdf` anywhere (fragments and aliases included):
 * those reads belong to the PDF cache, not the read cache or the fast path.
 */
export function selectsPdf(document: DocumentNode): boolean {
  let found = pdfSelections.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      Field(node) {
        if (node.name.value === 'pdf') found = true;
      },
    });
    pdfSelections.set(document, found);
  }
  return found;
}
