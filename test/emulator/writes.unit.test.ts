import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { graphql, signIn, useEmulator, type Credential } from '../support/emulator';
import { ADD_NEC, FINALIZE, STATUS, SUBMIT, UPDATE_NEC, VALID_NEC } from '../support/statements';

const sandbox = useEmulator('sandbox');
const SAMPLES = join(__dirname, '..', 'fixtures', 'upstream', 'samples');
const sample = <T>(name: string): T => JSON.parse(readFileSync(join(SAMPLES, name), 'utf8')) as T;

async function addNec(credential: Credential, statements: object[]) {
  return (await graphql(sandbox.url, credential, ADD_NEC, { s: statements })).body.data?.addF1099necStatements;
}

describe('add<Form>Statements', () => {
  it('stores an invalid statement as a draft with statementValid false and its validation messages', async () => {
    const credential = await signIn(sandbox.url);
    const { nonemployeeComp: _omitted, ...incomplete } = VALID_NEC;
    const result = await addNec(credential, [incomplete]);
    expect(result.statements[0]).toMatchObject({
      recordNumber: 1,
      messages: ["Nonemployee comp can't be blank"],
      statement: { statementValid: false, validationMessages: ["Nonemployee comp can't be blank"], status: 1 },
    });
    expect(result.statements[0].statement.otxId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it.each([
    ['a text field over maxStringLength', { senderName: 'x'.repeat(41) }, 'Sender name is too long (maximum is 40 characters)'],
    ['a malformed TIN', { recipientTin: '12345' }, 'Recipient tin must have 9 digits'],
    ['a malformed ZIP code', { recipientZipCode: '1016' }, 'Recipient zip code is not a valid ZIP code'],
    ['an unknown state', { senderState: 'XX' }, 'Sender state is not a valid state abbreviation'],
    ['a malformed phone number', { senderPhoneNumber: '555-12' }, 'Sender phone number is not a valid phone number'],
    ['a malformed amount', { nonemployeeComp: '12,00 USD' }, 'Nonemployee comp is not a valid amount (use digits and an optional decimal point, e.g. 1178.03)'],
    ['a TIN type outside 1-4', { recipientTinType: '7' }, 'Recipient tin type is not included in the list'],
    ['too many tags', { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'Tags has too many entries (maximum is 10)'],
    ['an unsupported tax year', { taxYear: 2001 }, 'Tax year 2001 is not supported'],
    ['no recipient name', { recipientFirstName: null, recipientLastName: null }, "Recipient name can't be blank (give a first and last name, or an entity name)"],
  ])('reports %s as a validation message', async (_case, change, message) => {
    const credential = await signIn(sandbox.url);
    const result = await addNec(credential, [{ ...VALID_NEC, ...change }]);
    expect(result.statements[0].statement.statementValid).toBe(false);
    expect(result.statements[0].messages).toEqual([message]);
  });

  it('accepts a recipient named as an entity instead of a person', async () => {
    const credential = await signIn(sandbox.url);
    const result = await addNec(credential, [{ ...VALID_NEC, recipientFirstName: null, recipientLastName: null, recipientEntityName: 'Babson LLC' }]);
    expect(result.statements[0].statement.statementValid).toBe(true);
  });

  it('refuses a taken or missing uploaderId with statement null, and stores the others', async () => {
    const credential = await signIn(sandbox.url);
    await addNec(credential, [VALID_NEC]);
    const result = await addNec(credential, [VALID_NEC, { ...VALID_NEC, uploaderId: null }, { ...VALID_NEC, uploaderId: 'nec-2' }]);
    expect(result.statements.map((s: { statement: unknown; messages: string[] }) => [s.statement === null, s.messages])).toEqual([
      [true, ['Uploader nec-1 has already been taken']],
      [true, ["Uploader can't be blank"]],
      [false, []],
    ]);
  });

  it('refuses a malformed Date with a GraphQL error', async () => {
    const credential = await signIn(sandbox.url);
    const res = await graphql(sandbox.url, credential, 'mutation { addF3922Statements(statements: [{ uploaderId: "d", dateOptionGranted: "03/15/2024" }]) { errors } }');
    expect(res.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('not a valid ISO-8601 date') });
  });

  it('checks the form\'s cross-field rules, as the 1099-NEC and 5498 tutorial data shows', async () => {
    const credential = await signIn(sandbox.url);
    const q = `mutation($s: [F5498Input!]!) { addF5498Statements(statements: $s) { statements { statement { uploaderId statementValid } messages } } }`;
    const res = await graphql(sandbox.url, credential, q, { s: sample<object[]>('f5498-data.json') });
    const byId = Object.fromEntries(res.body.data?.addF5498Statements.statements.map((s: { statement: { uploaderId: string }; messages: string[] }) => [s.statement.uploaderId, s.messages]));
    expect(byId).toEqual({
      6733766: ['Give late contribution year, late contribution code together'],
      6733767: [],
      6733768: ['Only one of ira, sep, simple, roth may be checked'],
      6733769: [],
      6733710: ["Sender zip code can't be blank"],
    });
    const fixed = await graphql(sandbox.url, credential, `mutation($s: [F5498UpdateInput!]!) { updateF5498Statements(statements: $s) { statements { statement { statementValid } } } }`, { s: sample('f5498-corrections.json') });
    expect(fixed.body.data?.updateF5498Statements.statements.map((s: { statement: { statementValid: boolean } }) => s.statement.statementValid)).toEqual([true, true, true]);
  });
});

describe('update<Form>Statements', () => {
  it('changes only the given fields, chosen by uploaderId', async () => {
    const credential = await signIn(sandbox.url);
    await addNec(credential, [VALID_NEC]);
    const res = await graphql(sandbox.url, credential, UPDATE_NEC, { s: [{ uploaderId: 'nec-1', statement: { nonemployeeComp: '99.50' } }] });
    expect(res.body.data?.updateF1099necStatements.statements[0]).toMatchObject({
      recordNumber: 1, messages: [], statement: { nonemployeeComp: '99.50', recipientCity: 'New York', statementValid: true },
    });
  });

  it('chooses the statement by otxId too, and revalidates it', async () => {
    const credential = await signIn(sandbox.url);
    const added = await addNec(credential, [VALID_NEC]);
    const otxId = added.statements[0].statement.otxId as string;
    const res = await graphql(sandbox.url, credential, UPDATE_NEC, { s: [{ otxId, statement: { recipientCity: null } }] });
    expect(res.body.data?.updateF1099necStatements.statements[0].statement).toMatchObject({
      otxId, recipientCity: null, statementValid: false, validationMessages: ["Recipient city can't be blank"],
    });
  });

  it('answers an unknown statement with statement null and a message', async () => {
    const credential = await signIn(sandbox.url);
    const res = await graphql(sandbox.url, credential, UPDATE_NEC, { s: [{ uploaderId: 'nope', statement: { recipientCity: 'x' } }] });
    expect(res.body.data?.updateF1099necStatements.statements[0]).toMatchObject({ statement: null, messages: ['Statement nope was not found'] });
  });

  it('refuses to change a finalized statement', async () => {
    const credential = await signIn(sandbox.url);
    await addNec(credential, [VALID_NEC]);
    await graphql(sandbox.url, credential, FINALIZE, { u: ['nec-1'] });
    const res = await graphql(sandbox.url, credential, UPDATE_NEC, { s: [{ uploaderId: 'nec-1', statement: { nonemployeeComp: '1.00' } }] });
    expect(res.body.data?.updateF1099necStatements.statements[0]).toMatchObject({
      statement: null, messages: ['Statement nec-1 is finalized and can no longer be changed'],
    });
  });
});

describe('deleteStatements', () => {
  it('deletes drafts, reports deleteCount, and refuses finalized statements in errors', async () => {
    const credential = await signIn(sandbox.url);
    await addNec(credential, [VALID_NEC, { ...VALID_NEC, uploaderId: 'nec-2' }, { ...VALID_NEC, uploaderId: 'nec-3' }]);
    await graphql(sandbox.url, credential, FINALIZE, { u: ['nec-3'] });
    const res = await graphql(sandbox.url, credential, 'mutation { deleteStatements(uploaderIds: ["nec-1", "nec-2", "nec-3", "nope"]) { errors deleteCount } }');
    expect(res.body.data?.deleteStatements).toEqual({ deleteCount: 2, errors: ['Statement nec-3 is finalized and cannot be deleted'] });
  });

  it('deletes nothing when no ids are given', async () => {
    const credential = await signIn(sandbox.url);
    await addNec(credential, [VALID_NEC]);
    const res = await graphql(sandbox.url, credential, 'mutation { deleteStatements { errors deleteCount } }');
    expect(res.body.data?.deleteStatements).toEqual({ deleteCount: 0, errors: ['Supply otxIds or uploaderIds to choose the statements'] });
  });
});

describe('finalizeStatements and submitStatements in the sandbox', () => {
  it('finalizes only valid drafts and explains the others', async () => {
    const credential = await signIn(sandbox.url);
    const { nonemployeeComp: _x, ...invalid } = { ...VALID_NEC, uploaderId: 'bad' };
    await addNec(credential, [VALID_NEC, invalid]);
    const res = await graphql(sandbox.url, credential, FINALIZE, { u: ['nec-1', 'bad'] });
    expect(res.body.data?.finalizeStatements).toMatchObject({
      errors: [], successCount: 1,
      messages: [
        { uploaderId: 'nec-1', messages: ['Statement finalized'] },
        { uploaderId: 'bad', messages: ['Statement is not valid and cannot be finalized', "Nonemployee comp can't be blank"] },
      ],
    });
    const again = await graphql(sandbox.url, credential, FINALIZE, { u: ['nec-1'] });
    expect(again.body.data?.finalizeStatements.messages[0].messages).toEqual(['Statement is already finalized']);
  });

  it('finalizes without a credit card', async () => {
    const credential = await signIn(sandbox.url);
    await addNec(credential, [VALID_NEC]);
    expect((await graphql(sandbox.url, credential, FINALIZE, { u: ['nec-1'] })).body.data?.finalizeStatements.successCount).toBe(1);
  });

  it('accepts drafts and finalized statements for submission and changes nothing visible', async () => {
    const credential = await signIn(sandbox.url);
    await addNec(credential, [VALID_NEC, { ...VALID_NEC, uploaderId: 'nec-2' }]);
    await graphql(sandbox.url, credential, FINALIZE, { u: ['nec-2'] });
    const before = (await graphql(sandbox.url, credential, STATUS, { u: ['nec-1', 'nec-2'] })).body.data;
    const res = await graphql(sandbox.url, credential, SUBMIT, { u: ['nec-1', 'nec-2'] });
    expect(res.body.data?.submitStatements).toMatchObject({ errors: [], successCount: 2 });
    expect((await graphql(sandbox.url, credential, STATUS, { u: ['nec-1', 'nec-2'] })).body.data).toEqual(before);
  });
});

