/**
 * The largest request the upstream documents as valid: an add of 1,000 statements (its most per
 * call) of the form with the most input fields (FORMS, from sources/statement-filing-service/
 * forms.json), every field given, each text at its longest (maxStringLength), `tags` at its most
 * values. Written inline in the query text, as the tutorial clients write statements, or passed in
 * variables. The drop-in front's limits (src/drop-in/front-limits.ts) are sized on it: its test
 * (test/drop-in/bulk-uploads.test.ts) and bench/experiments/front-bulk-and-reverify.ts send it.
 */
import { FORMS, type FieldDefinition, type FormSpec } from '../sources/statement-filing-service/catalogue';

export const STATEMENTS_PER_CALL = 1_000;

/** The form with the most input fields. */
export function largestForm(): FormSpec {
  return [...FORMS].sort((a, b) => b.input.length - a.input.length)[0] as FormSpec;
}

function longest(field: FieldDefinition, taxYear: number): unknown {
  switch (field.dataType) {
    case 'boolean': return true;
    case 'integer': return field.identifier === 'taxYear' ? taxYear : 99;
    case 'array': return Array.from({ length: field.maxArrayLength ?? 1 }, (_, index) => `tag-${index}`.padEnd(20, 'x'));
    default: return field.sampleValue.padEnd(field.maxStringLength ?? field.sampleValue.length, 'x');
  }
}

/** `count` statements of `form`, every field at its longest, uploaderIds `<prefix><n>`. */
export function bulkStatements(form: FormSpec, prefix: string, count = STATEMENTS_PER_CALL): Record<string, unknown>[] {
  const taxYear = new Date().getUTCFullYear() - 1;
  const template = Object.fromEntries(form.fields.map((field) => [field.identifier, longest(field, taxYear)]));
  return Array.from({ length: count }, (_, index) => ({ ...template, uploaderId: `${prefix}${index + 1}` }));
}

const literal = (value: unknown): string => (Array.isArray(value) ? `[${value.map(literal).join(', ')}]` : typeof value === 'string' ? JSON.stringify(value) : String(value));

const SELECTION = '{ errors statements { recordNumber statement { otxId uploaderId } } }';

/** The add with its statements written inline (GraphQL object literals). */
export function inlineAdd(form: FormSpec, statements: readonly Record<string, unknown>[]): string {
  const objects = statements.map((statement) => `{ ${Object.entries(statement).map(([name, value]) => `${name}: ${literal(value)}`).join(', ')} }`);
  return `mutation { ${form.operations.add}(statements: [${objects.join(', ')}]) ${SELECTION} }`;
}

/** The add with its statements in variables. */
export function variablesAdd(form: FormSpec, statements: readonly Record<string, unknown>[]): { query: string; variables: { s: readonly Record<string, unknown>[] } } {
  return { query: `mutation($s: [${form.key}Input!]!) { ${form.operations.add}(statements: $s) ${SELECTION} }`, variables: { s: statements } };
}
