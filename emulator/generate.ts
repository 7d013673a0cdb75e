/**
 * Valid statements made from the catalogue's sample values, for the control API: the fields the
 * service marks as frequently used, with one checkbox of each "at most one" group and both halves
 * of each "together" pair.
 */
import type { FieldDefinition, FormSpec } from '../sources/statement-filing-service/catalogue';
import type { StatementStore } from './statements';
import { validateStatement, type FieldValue, type StatementData } from './validation';

function sample(def: FieldDefinition): FieldValue {
  switch (def.dataType) {
    case 'boolean': return def.sampleValue === 'true';
    case 'integer': return Number.parseInt(def.sampleValue, 10);
    case 'decimal': return Number.parseFloat(def.sampleValue);
    case 'array': return JSON.parse(def.sampleValue) as string[];
    default: return def.sampleValue;
  }
}

export function sampleStatement(form: FormSpec, uploaderId: string, taxYear: number, index: number): StatementData {
  const data: StatementData = {};
  const used = (def: FieldDefinition) => def.frequentUse && def.yearsUsed.includes(taxYear);
  for (const def of form.fields.filter(used)) data[def.identifier] = sample(def);
  for (const rule of form.rules) {
    if (rule.kind === 'atMostOne') rule.fields.slice(1).forEach((f) => delete data[f]);
    if (rule.kind === 'together' && rule.fields.some((f) => data[f] !== undefined)) {
      for (const f of rule.fields) {
        const def = form.fields.find((d) => d.identifier === f);
        if (def) data[f] = sample(def);
      }
    }
  }
  data.uploaderId = uploaderId;
  data.taxYear = taxYear;
  if ('recipientLastName' in data) data.recipientLastName = `${String(data.recipientLastName)} ${index + 1}`;
  return data;
}

export type GenerateResult =
  | { ok: true; created: { otxId: string; uploaderId: string }[] }
  | { ok: false; error: string };

export function generateStatements(store: StatementStore, form: FormSpec, count: number, prefix?: string): GenerateResult {
  const taxYear = new Date().getUTCFullYear() - 1;
  let ids: string[];
  if (prefix === undefined) {
    // Without a prefix the ids continue an account-wide sequence, skipping any id already taken.
    ids = [];
    while (ids.length < count) {
      const id = `${form.metadata.identifier}-${store.nextSequence()}`;
      if (!store.hasUploaderId(id)) ids.push(id);
    }
  } else {
    ids = Array.from({ length: count }, (_, i) => `${prefix}${i + 1}`);
    const taken = ids.find((id) => store.hasUploaderId(id));
    if (taken) return { ok: false, error: `Uploader ${taken} has already been taken` };
  }
  const created = ids.map((uploaderId, i) => {
    const data = sampleStatement(form, uploaderId, taxYear, i);
    const messages = validateStatement(form, data);
    if (messages.length > 0) throw new Error(`generated ${form.key} statement is invalid: ${messages.join('; ')}`);
    const s = store.add(form, data);
    return { otxId: s.otxId, uploaderId };
  });
  return { ok: true, created };
}
