/**
 * The one catalogue of the upstream's 12 forms: the published field lists (`../forms.json`, where from:
 * test/fixtures/upstream/README.md) joined with what the forms themselves say (`forms-metadata.ts`,
 * `common-fields.ts`). The SDL generator and the emulator both read it; nothing else lists fields.
 */
import formsJson from '../forms.json';
import { COMMON_FIELDS, RECIPIENT_NAME_FIELDS } from './common-fields';
import {
  dataTypeOf, maxArrayLengthOf, maxStringLengthOf, sampleValueOf,
  type DataType, type GraphqlFieldType,
} from './field-types';
import { FORMS_METADATA, type FormMetadata, type FormRule } from './forms-metadata';

export { DATA_TYPES, type DataType, type GraphqlFieldType } from './field-types';
export type { FormRule } from './forms-metadata';

export interface FormField {
  readonly name: string;
  readonly type: GraphqlFieldType;
}

/** A field definition exactly as `statementDefinitions` publishes it. */
export interface FieldDefinition {
  readonly identifier: string;
  readonly arrayType: DataType | null;
  readonly boxLabel: string;
  readonly boxNumber: string | null;
  readonly dataType: DataType;
  readonly description: string;
  readonly fixedArrayLength: number | null;
  readonly frequentUse: boolean;
  readonly maxArrayLength: number | null;
  readonly maxStringLength: number | null;
  readonly sampleValue: string;
  readonly sortOrder: number;
  readonly yearsUsed: readonly number[];
}

export interface FormSpec {
  /** The form's key in forms.json and in operation names: `F1099nec`, `Fw2`, ... */
  readonly key: string;
  readonly operations: { readonly add: string; readonly update: string; readonly get: string };
  readonly input: readonly FormField[];
  readonly output: readonly FormField[];
  readonly metadata: FormMetadata;
  /** Definitions of the input fields, in form order (`sortOrder`). */
  readonly fields: readonly FieldDefinition[];
  /** Fields a valid statement must have (the recipient's name is checked separately). */
  readonly required: readonly string[];
  readonly rules: readonly FormRule[];
  /** True when the form names its recipient either as a person or as an entity. */
  readonly recipientMayBeEntity: boolean;
}

interface FormsJson {
  readonly forms: Readonly<Record<string, {
    add: string; update: string; get: string;
    input: { name: string; type: string }[]; output: { name: string; type: string }[];
  }>>;
}

const GRAPHQL_TYPES: ReadonlySet<string> = new Set(['String', 'Boolean', 'Int', 'Float', 'Date', '[String]']);

function asFields(list: readonly { name: string; type: string }[], form: string): FormField[] {
  return list.map(({ name, type }) => {
    if (!GRAPHQL_TYPES.has(type)) throw new Error(`forms.json: ${form}.${name} has unknown type ${type}`);
    return { name, type: type as GraphqlFieldType };
  });
}

/** The first tax year the catalogue covers, and the fields that stopped being used in 2020. */
const FIRST_YEAR = 2017;
const LEGACY_FIELDS: ReadonlySet<string> = new Set(['nonemployeeCompensation', 'section409aIncome']);

export function taxYearsCovered(now: Date = new Date()): number[] {
  const last = now.getUTCFullYear();
  return Array.from({ length: last - FIRST_YEAR + 1 }, (_, i) => FIRST_YEAR + i);
}

function yearsUsedOf(name: string, years: readonly number[]): number[] {
  return LEGACY_FIELDS.has(name) ? years.filter((y) => y < 2020) : [...years];
}

function partyWords(meta: FormMetadata): { S: string; R: string } {
  return { S: meta.senderName.toUpperCase(), R: meta.recipientName.toUpperCase() };
}

function defineFields(key: string, input: readonly FormField[], meta: FormMetadata, years: readonly number[]): FieldDefinition[] {
  const words = partyWords(meta);
  const common = Object.keys(COMMON_FIELDS);
  const boxes = Object.keys(meta.boxes);
  const rank = (name: string): number => {
    const b = boxes.indexOf(name);
    if (b >= 0) return 1000 + b;
    const c = common.indexOf(name);
    if (c >= 0) return c < common.indexOf('accountNumber') ? c : 2000 + c;
    throw new Error(`catalogue: ${key}.${name} is neither a common field nor a box of the form`);
  };
  const ordered = [...input].sort((a, b) => rank(a.name) - rank(b.name));
  return ordered.map(({ name, type }, index) => {
    const box = meta.boxes[name];
    const shared = COMMON_FIELDS[name];
    const dataType = dataTypeOf(name, type);
    const boxNumber = box ? box[0] : key === 'Fw2' ? (shared?.w2Box ?? null) : null;
    const boxLabel = box ? box[1] : (shared?.label ?? name).replace('{S}', words.S).replace('{R}', words.R);
    const required = meta.required.includes(name) || shared?.required === true;
    return {
      identifier: name,
      arrayType: dataType === 'array' ? 'text' : null,
      boxLabel,
      boxNumber,
      dataType,
      description: `${boxLabel}${boxNumber ? ` (box ${boxNumber})` : ''} on ${meta.name}${required ? '; required' : ''}.`,
      fixedArrayLength: null,
      frequentUse: required || shared?.frequentUse === true || (box !== undefined && boxes.indexOf(name) < 4),
      maxArrayLength: maxArrayLengthOf(name, dataType),
      maxStringLength: maxStringLengthOf(name, dataType, shared?.maxStringLength),
      sampleValue: sampleValueOf(name, dataType, shared?.sampleValue),
      sortOrder: (index + 1) * 10,
      yearsUsed: yearsUsedOf(name, years),
    };
  });
}

function buildForms(now: Date): FormSpec[] {
  const years = taxYearsCovered(now);
  const json = formsJson as FormsJson;
  return Object.entries(json.forms).map(([key, form]) => {
    const metadata = FORMS_METADATA[key];
    if (!metadata) throw new Error(`catalogue: no metadata for form ${key}`);
    const input = asFields(form.input, key);
    const inputNames = new Set(input.map((f) => f.name));
    const required = input
      .filter((f) => metadata.required.includes(f.name) || COMMON_FIELDS[f.name]?.required === true)
      .map((f) => f.name);
    return {
      key,
      operations: { add: form.add, update: form.update, get: form.get },
      input,
      output: asFields(form.output, key),
      metadata,
      fields: defineFields(key, input, metadata, years),
      required,
      rules: metadata.rules,
      recipientMayBeEntity: inputNames.has(RECIPIENT_NAME_FIELDS.entity),
    };
  });
}

export const FORMS: readonly FormSpec[] = buildForms(new Date());

const BY_KEY = new Map(FORMS.map((f) => [f.key.toLowerCase(), f]));
const BY_IDENTIFIER = new Map(FORMS.map((f) => [f.metadata.identifier, f]));

/** A form by its key (`F1099nec`, case-insensitive) or its identifier (`f1099nec`). */
export function findForm(name: string): FormSpec | undefined {
  return BY_KEY.get(name.toLowerCase()) ?? BY_IDENTIFIER.get(name);
}

/**
 * Fields of the generic statement object read with `getStatements` (the upstream's `Statement`
 * class): the parties, status and bookkeeping, the same for every form. `pdf` is added by the SDL.
 */
export const GENERIC_STATEMENT_FIELDS: readonly FormField[] = [
  { name: 'corrected', type: 'Boolean' }, { name: 'formType', type: 'String' },
  { name: 'otxId', type: 'String' }, { name: 'otxSubmissionId', type: 'String' },
  ...[
    'recipientAddress1', 'recipientAddress2', 'recipientAddress3', 'recipientCity', 'recipientEntityName',
    'recipientFirstName', 'recipientLastName', 'recipientMiddleName', 'recipientNameSuffix', 'recipientState',
    'recipientTin', 'recipientTinType', 'recipientZipCode', 'senderAddress1', 'senderAddress2', 'senderCity',
    'senderName', 'senderPhoneNumber', 'senderState', 'senderTin', 'senderZipCode',
  ].map((name): FormField => ({ name, type: 'String' })),
  { name: 'statementValid', type: 'Boolean' }, { name: 'status', type: 'Int' },
  { name: 'statusDescription', type: 'String' }, { name: 'submissionStatus', type: 'Int' },
  { name: 'submissionStatusDescription', type: 'String' }, { name: 'taFileDate', type: 'Date' },
  { name: 'taResponseDate', type: 'Date' }, { name: 'tags', type: '[String]' },
  { name: 'taxAuthority', type: 'String' }, { name: 'taxYear', type: 'Int' },
  { name: 'uploaderId', type: 'String' }, { name: 'validationMessages', type: '[String]' },
];
