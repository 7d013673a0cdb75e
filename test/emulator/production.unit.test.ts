import { describe, expect, it } from 'vitest';
import { graphql, signIn, useEmulator, type Credential } from '../support/emulator';
import { pdfText } from '../support/pdf-text';
import { ADD_NEC, FINALIZE, STATUS, SUBMIT, VALID_CARD, VALID_NEC } from '../support/statements';

const production = useEmulator('production');
const PDF = 'query($u: [String!]) { getStatements(uploaderIds: $u) { statements { nodes { uploaderId pdf } } } }';

async function addValid(credential: Credential, uploaderIds: string[]): Promise<void> {
  await graphql(production.url, credential, ADD_NEC, { s: uploaderIds.map((uploaderId) => ({ ...VALID_NEC, uploaderId })) });
}

async function pdfOf(credential: Credential, uploaderId: string): Promise<string> {
  return (await graphql(production.url, credential, PDF, { u: [uploaderId] })).body.data?.getStatements.statements.nodes[0].pdf as string;
}

describe('production finalize', () => {
  it('requires a credit card and finalizes nothing without one', async () => {
    const credential = await signIn(production.url);
    await addValid(credential, ['p-1']);
    const res = await graphql(production.url, credential, FINALIZE, { u: ['p-1'] });
    expect(res.body.data?.finalizeStatements).toEqual({
      errors: ['A credit card is required to finalize statements in production'], successCount: 0, messages: [],
    });
  });

  it.each([
    ['a number that fails the Luhn check', { cardNumber: '4242424242424241' }, 'Card number is invalid'],
    ['an expired card', { cardExpiration: '0825' }, 'Card has expired'],
    ['a malformed expiration', { cardExpiration: '13/30' }, 'Card expiration must be MMYY'],
    ['a malformed cvv', { cvv: '12' }, 'Cvv is invalid'],
  ])('refuses %s', async (_case, change, error) => {
    const credential = await signIn(production.url);
    await addValid(credential, ['p-1']);
    const res = await graphql(production.url, credential, FINALIZE, { u: ['p-1'], card: { ...VALID_CARD, ...change } });
    expect(res.body.data?.finalizeStatements.errors).toEqual([error]);
  });

  it('finalizes valid drafts with a valid card and removes the DRAFT watermark from their PDFs', async () => {
    const credential = await signIn(production.url);
    await addValid(credential, ['p-1']);
    const draft = await pdfText(await pdfOf(credential, 'p-1'));
    expect(draft).toContain('DRAFT');
    expect(draft).not.toContain('SANDBOX');
    const res = await graphql(production.url, credential, FINALIZE, { u: ['p-1'], card: VALID_CARD });
    expect(res.body.data?.finalizeStatements.successCount).toBe(1);
    const final = await pdfText(await pdfOf(credential, 'p-1'));
    expect(final).not.toContain('DRAFT');
    expect(final).toContain('Form 1099-NEC');
    expect(final).toContain('1178.03');
  });
});

describe('production submit', () => {
  it('submits only finalized statements and records the submission', async () => {
    const credential = await signIn(production.url);
    await addValid(credential, ['p-1', 'p-2']);
    await graphql(production.url, credential, FINALIZE, { u: ['p-1'], card: VALID_CARD });
    const res = await graphql(production.url, credential, SUBMIT, { u: ['p-1', 'p-2'] });
    expect(res.body.data?.submitStatements).toEqual({
      errors: [], successCount: 1,
      messages: [
        { uploaderId: 'p-1', messages: ['Statement submitted to the IRS'] },
        { uploaderId: 'p-2', messages: ['Only finalized statements can be submitted'] },
      ],
    });
    const nodes = (await graphql(production.url, credential, STATUS, { u: ['p-1', 'p-2'] })).body.data?.getStatements.statements.nodes;
    expect(nodes[0]).toMatchObject({
      status: 2, statusDescription: expect.stringContaining('Finalized'),
      submissionStatus: 1, submissionStatusDescription: expect.stringContaining('Submitted'),
      taFileDate: new Date().toISOString().slice(0, 10), otxSubmissionId: expect.any(String),
    });
    expect(nodes[1]).toMatchObject({ status: 1, submissionStatus: 0, taFileDate: null, otxSubmissionId: null });
    const again = await graphql(production.url, credential, SUBMIT, { u: ['p-1'] });
    expect(again.body.data?.submitStatements.messages[0].messages).toEqual(['Statement was already submitted']);
  });
});

describe('production PDFs', () => {
  it('gives the same bytes for the same statement state and new ones after an update', async () => {
    const credential = await signIn(production.url);
    await addValid(credential, ['p-1']);
    const first = await pdfOf(credential, 'p-1');
    expect(await pdfOf(credential, 'p-1')).toBe(first);
    await graphql(production.url, credential, 'mutation { updateF1099necStatements(statements: [{ uploaderId: "p-1", statement: { nonemployeeComp: "2000.00" } }]) { errors } }');
    const updated = await pdfOf(credential, 'p-1');
    expect(updated).not.toBe(first);
    expect(await pdfText(updated)).toContain('2000.00');
  });

  it('renders a statement\'s PDF once per state, not on every read', async () => {
    const credential = await signIn(production.url);
    await addValid(credential, ['p-1']);
    await pdfOf(credential, 'p-1');
    const stored = [...production.emulator.state.storeOf(1).select({ uploaderIds: ['p-1'] })][0];
    const rendering = stored?.pdf?.base64;
    expect(rendering).toBeDefined();
    await pdfOf(credential, 'p-1');
    expect(stored?.pdf?.base64).toBe(rendering);
  });
});
