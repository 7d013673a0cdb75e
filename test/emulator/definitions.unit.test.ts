import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_TYPES } from '../../sources/statement-filing-service/catalogue';
import { DEMO_ACCOUNT, graphql, seed, signIn, useEmulator } from '../support/emulator';
import { pdfText } from '../support/pdf-text';

const sandbox = useEmulator('sandbox');

interface FieldDef {
  identifier: string; arrayType: string | null; boxLabel: string; boxNumber: string | null; dataType: string;
  description: string; fixedArrayLength: number | null; frequentUse: boolean; maxArrayLength: number | null;
  maxStringLength: number | null; sampleValue: string; sortOrder: number; yearsUsed: number[];
}
interface Definition {
  identifier: string; name: string; title: string; description: string; recipientName: string; senderName: string;
  blankForm: string; fields: FieldDef[];
}

const DEFINITIONS = `{ statementDefinitions { errors definitions { identifier name title description recipientName senderName blankForm
  fields { identifier arrayType boxLabel boxNumber dataType description fixedArrayLength frequentUse maxArrayLength maxStringLength sampleValue sortOrder yearsUsed } } } }`;
const forms = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'sources', 'statement-filing-service', 'forms.json'), 'utf8')) as {
  forms: Record<string, { input: { name: string }[] }>;
}).forms;

async function definitions(): Promise<Definition[]> {
  const res = await graphql(sandbox.url, await signIn(sandbox.url), DEFINITIONS);
  expect(res.body.data?.statementDefinitions.errors).toEqual([]);
  return res.body.data?.statementDefinitions.definitions as Definition[];
}

describe('statementDefinitions', () => {
  it('lists the 12 forms of forms.json, each with exactly its published input fields', async () => {
    const defs = await definitions();
    expect(defs.map((d) => d.identifier).sort()).toEqual(Object.keys(forms).map((k) => k.toLowerCase()).sort());
    for (const def of defs) {
      const key = Object.keys(forms).find((k) => k.toLowerCase() === def.identifier)!;
      expect(def.fields.map((f) => f.identifier).sort(), key).toEqual(forms[key]!.input.map((f) => f.name).sort());
    }
  });

  it('names each form and its two parties as the tax forms do', async () => {
    const defs = await definitions();
    expect(defs.find((d) => d.identifier === 'fw2')).toMatchObject({ name: 'Form W-2', title: 'Wage and Tax Statement', recipientName: 'employee', senderName: 'employer' });
    expect(defs.find((d) => d.identifier === 'f1099nec')).toMatchObject({ name: 'Form 1099-NEC', recipientName: 'recipient', senderName: 'payer' });
  });

  it('fills every field definition consistently with its data type', async () => {
    for (const def of await definitions()) {
      const orders = def.fields.map((f) => f.sortOrder);
      expect(orders, def.identifier).toEqual([...orders].sort((a, b) => a - b));
      expect(new Set(orders).size).toBe(orders.length);
      for (const f of def.fields) {
        const where = `${def.identifier}.${f.identifier}`;
        expect(DATA_TYPES, where).toContain(f.dataType);
        expect(f.arrayType !== null, where).toBe(f.dataType === 'array');
        expect(f.maxStringLength !== null, where).toBe(f.dataType === 'text');
        expect(f.maxArrayLength !== null, where).toBe(f.dataType === 'array');
        expect(f.fixedArrayLength, where).toBeNull();
        expect(f.boxLabel.length, where).toBeGreaterThan(1);
        expect(f.description, where).toContain(f.boxLabel);
        expect(f.sampleValue.length, where).toBeGreaterThan(0);
        expect(f.yearsUsed.length, where).toBeGreaterThan(0);
        if (f.dataType === 'money') expect(f.sampleValue, where).toMatch(/^\d+\.\d{2}$/);
        if (f.dataType === 'tin') expect(f.sampleValue, where).toMatch(/^\d{9}$/);
        if (f.dataType === 'zip_code') expect(f.sampleValue, where).toMatch(/^\d{5}$/);
        if (f.dataType === 'date') expect(f.sampleValue, where).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        if (f.maxStringLength !== null) expect(f.sampleValue.length, where).toBeLessThanOrEqual(f.maxStringLength);
      }
    }
  });

  it('gives the IRS box numbers of well-known fields', async () => {
    const defs = await definitions();
    const field = (form: string, id: string) => defs.find((d) => d.identifier === form)!.fields.find((f) => f.identifier === id);
    expect(field('f1099nec', 'nonemployeeComp')).toMatchObject({ boxNumber: '1', boxLabel: 'Nonemployee compensation', dataType: 'money', frequentUse: true });
    expect(field('fw2', 'wagesTipsOtherComp')).toMatchObject({ boxNumber: '1', dataType: 'money' });
    expect(field('fw2', 'recipientTin')).toMatchObject({ boxNumber: 'a', dataType: 'tin', boxLabel: "EMPLOYEE'S TIN" });
    expect(field('f3922', 'dateOptionExercised')).toMatchObject({ boxNumber: '2', dataType: 'date' });
  });

  it('carries each form\'s blank form as a real PDF showing the form name and its boxes', async () => {
    const defs = await definitions();
    for (const def of defs) {
      expect(Buffer.from(def.blankForm, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    }
    const nec = defs.find((d) => d.identifier === 'f1099nec')!;
    const text = await pdfText(nec.blankForm);
    expect(text).toContain('Form 1099-NEC');
    expect(text).toContain('Nonemployee compensation');
    expect(text).not.toContain('SANDBOX');
  });
});

describe('statement PDFs in the sandbox', () => {
  it('show the form, the statement\'s values and the SANDBOX watermark, which finalize keeps', async () => {
    const credential = await signIn(sandbox.url);
    const [s] = await seed(sandbox.url, DEMO_ACCOUNT.email, 'F1099nec', 1, 'pdf-');
    const q = 'query($u: [String!]) { getF1099necStatements(uploaderIds: $u) { statements { nodes { pdf } } } }';
    const read = async () => pdfText((await graphql(sandbox.url, credential, q, { u: [s!.uploaderId] })).body.data?.getF1099necStatements.statements.nodes[0].pdf as string);
    const draft = await read();
    for (const expected of ['Form 1099-NEC', 'SANDBOX', 'Babson 1', '1178.03', s!.otxId]) expect(draft).toContain(expected);
    const fin = await graphql(sandbox.url, credential, 'mutation($u: [String!]) { finalizeStatements(uploaderIds: $u) { successCount } }', { u: [s!.uploaderId] });
    expect(fin.body.data?.finalizeStatements.successCount).toBe(1);
    expect(await read()).toContain('SANDBOX');
  });

  it('renders the PDF of a statement holding a 20,000-character value, cut to fit its box', async () => {
    const credential = await signIn(sandbox.url);
    const long = `Leif${'x'.repeat(20_000)}`;
    await graphql(sandbox.url, credential, 'mutation($n: String) { addF1099necStatements(statements: [{ uploaderId: "long", recipientFirstName: $n }]) { errors } }', { n: long });
    const res = await graphql(sandbox.url, credential, '{ getF1099necStatements(uploaderIds: ["long"]) { statements { nodes { pdf validationMessages } } } }');
    const node = res.body.data?.getF1099necStatements.statements.nodes[0];
    expect(node.validationMessages).toContain('Recipient first name is too long (maximum is 40 characters)');
    expect(await pdfText(node.pdf as string)).toMatch(/Leifx+\./);
  });
});
