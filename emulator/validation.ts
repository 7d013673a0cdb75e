/**
 * Validation messages of a statement, derived from the catalogue's field definitions: required
 * fields, `maxStringLength`/`maxArrayLength`, data types, TIN, ZIP code, state and phone formats,
 * tax years, and the form's cross-field rules. Messages are Rails' full messages
 * (`errors.full_messages`), since the upstream is a Rails service.
 */
import { RECIPIENT_NAME_FIELDS } from '../sources/statement-filing-service/catalogue/common-fields';
import type { FieldDefinition, FormSpec } from '../sources/statement-filing-service/catalogue';

export type FieldValue = string | number | boolean | readonly string[] | null;
export type StatementData = Record<string, FieldValue | undefined>;

const STATES = new Set(
  ('AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND ' +
    'OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI UM FM MH PW AA AE AP').split(' '),
);
const TIN_TYPES = new Set(['1', '2', '3', '4']);

/** Rails' `humanize` of the attribute: `recipientZipCode` becomes `Recipient zip code`. */
export function humanize(field: string): string {
  const words = field.replace(/([a-z\d])([A-Z])/g, '$1 $2').replace(/(\D)(\d)/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function isBlank(value: FieldValue | undefined): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

function typeMessage(def: FieldDefinition, value: FieldValue): string | null {
  const name = humanize(def.identifier);
  if (typeof value !== 'string') {
    if (Array.isArray(value) && def.maxArrayLength !== null && value.length > def.maxArrayLength) {
      return `${name} has too many entries (maximum is ${def.maxArrayLength})`;
    }
    return null;
  }
  switch (def.dataType) {
    case 'text':
      return def.maxStringLength !== null && value.length > def.maxStringLength
        ? `${name} is too long (maximum is ${def.maxStringLength} characters)` : null;
    case 'character':
      if (value.length !== 1) return `${name} must be a single character`;
      return def.identifier.endsWith('TinType') && !TIN_TYPES.has(value) ? `${name} is not included in the list` : null;
    case 'money':
      return /^-?\d{1,13}(\.\d{1,2})?$/.test(value) ? null : `${name} is not a valid amount (use digits and an optional decimal point, e.g. 1178.03)`;
    case 'tin':
      return /^(\d{9}|\d{3}-\d{2}-\d{4}|\d{2}-\d{7})$/.test(value) ? null : `${name} must have 9 digits`;
    case 'zip_code':
      return /^\d{5}(-?\d{4})?$/.test(value) ? null : `${name} is not a valid ZIP code`;
    case 'state':
      return STATES.has(value.toUpperCase()) ? null : `${name} is not a valid state abbreviation`;
    case 'phone_number':
      return /^1?\d{10}$/.test(value.replace(/[\s().+-]/g, '')) ? null : `${name} is not a valid phone number`;
    default:
      return null;
  }
}

function recipientNameMessages(form: FormSpec, data: StatementData): string[] {
  const [first, last] = RECIPIENT_NAME_FIELDS.person;
  const person = !isBlank(data[first]) && !isBlank(data[last]);
  if (form.recipientMayBeEntity) {
    return person || !isBlank(data[RECIPIENT_NAME_FIELDS.entity])
      ? [] : ["Recipient name can't be blank (give a first and last name, or an entity name)"];
  }
  return [first, last].filter((f) => isBlank(data[f])).map((f) => `${humanize(f)} can't be blank`);
}

function ruleMessages(form: FormSpec, data: StatementData): string[] {
  return form.rules.flatMap((rule) => {
    const names = rule.fields.map(humanize).map((n) => n.toLowerCase()).join(', ');
    if (rule.kind === 'atMostOne') {
      return rule.fields.filter((f) => data[f] === true).length > 1 ? [`Only one of ${names} may be checked`] : [];
    }
    const given = rule.fields.filter((f) => !isBlank(data[f])).length;
    return given > 0 && given < rule.fields.length ? [`Give ${names} together`] : [];
  });
}

export function validateStatement(form: FormSpec, data: StatementData): string[] {
  const messages: string[] = [];
  for (const field of form.required) {
    if (isBlank(data[field])) messages.push(`${humanize(field)} can't be blank`);
  }
  messages.push(...recipientNameMessages(form, data));
  const taxYear = typeof data.taxYear === 'number' ? data.taxYear : null;
  const yearDef = form.fields.find((d) => d.identifier === 'taxYear');
  const yearSupported = taxYear !== null && yearDef !== undefined && yearDef.yearsUsed.includes(taxYear);
  if (taxYear !== null && !yearSupported) messages.push(`Tax year ${taxYear} is not supported`);
  for (const def of form.fields) {
    const value = data[def.identifier];
    if (isBlank(value) || value === undefined || value === null) continue;
    const message = typeMessage(def, value);
    if (message) messages.push(message);
    // Fields that a form dropped (or added) in some year; only meaningful for a supported year.
    if (yearSupported && value !== false && !def.yearsUsed.includes(taxYear)) {
      messages.push(`${humanize(def.identifier)} is not used in tax year ${taxYear}`);
    }
  }
  messages.push(...ruleMessages(form, data));
  return messages;
}
