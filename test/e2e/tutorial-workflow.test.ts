/**
 * The upstream's own tutorial (OtterTax/tutorial-source-code), replayed against the emulator with
 * the same documents and data: sign in, add, check, correct, download, delete, finalize, submit,
 * sign out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../emulator';
import { graphql, signIn, useEmulator } from '../support/emulator';
import { pdfText } from '../support/pdf-text';

const SAMPLES = join(__dirname, '..', 'fixtures', 'upstream', 'samples');
const sample = (name: string): unknown => JSON.parse(readFileSync(join(SAMPLES, name), 'utf8'));
const ALL = ['23911', '23912', '23913', '23914', '23915'];

/** The tutorial's own card: optional and ignored in the sandbox; production gets one that is not expired. */
const TUTORIAL_CARD = `firstName: "Annalise" lastName: "Havemeyer" companyName: "Big Apple Analytics"
  address: "179 N. 13th Street, Suite 14C" city: "Brooklyn" state: "NY" zipCode: "11249" cvv: "3767"`;
const CARD = { sandbox: `${TUTORIAL_CARD} cardNumber: "371648189095315" cardExpiration: "0825"`, production: `${TUTORIAL_CARD} cardNumber: "371648189095315" cardExpiration: "1239"` };

/** The tutorial's helper toGqlObject: statements written inline into the document. */
function toGqlObject(obj: Record<string, unknown>): string {
  const items = Object.entries(obj).map(([k, v]) =>
    `${k}: ${typeof v === 'object' && v !== null && !Array.isArray(v) ? toGqlObject(v as Record<string, unknown>) : JSON.stringify(v)}`);
  return `\n{${items.join('\n')}\n}\n`;
}
const ids = (list: string[]) => list.map((id) => `"${id}"`).join(',');

describe.each<Environment>(['sandbox', 'production'])('the upstream tutorial workflow in the %s', (environment) => {
  const ctx = useEmulator(environment);

  it('runs from sign-in to sign-out with the tutorial\'s documents and data', async () => {
    const credential = await signIn(ctx.url);

    const statements = (sample('f1099nec-data.json') as Record<string, unknown>[]).map(toGqlObject).join('\n');
    const added = await graphql(ctx.url, credential, `mutation { addF1099necStatements(statements: [${statements}]) {
      errors statements { recordNumber statement { otxId uploaderId recipientFirstName recipientLastName tags } messages } } }`);
    expect(added.status).toBe(200);
    expect(added.body.data?.addF1099necStatements.errors).toEqual([]);
    expect(added.body.data?.addF1099necStatements.statements.map((s: { statement: { uploaderId: string } }) => s.statement.uploaderId)).toEqual(ALL);
    expect(added.body.data?.addF1099necStatements.statements[0].statement.tags).toEqual(['test', 'send for review']);

    const check = `query { getF1099necStatements(uploaderIds: [${ids(ALL)}]) { errors statements { pageInfo { hasNextPage }
      nodes { otxId uploaderId statementValid validationMessages status statusDescription } } } }`;
    const checked = (await graphql(ctx.url, credential, check)).body.data?.getF1099necStatements.statements;
    expect(checked.pageInfo.hasNextPage).toBe(false);
    const invalid = checked.nodes.filter((n: { statementValid: boolean }) => !n.statementValid);
    expect(invalid.map((n: { uploaderId: string }) => n.uploaderId)).toEqual(['23912', '23914']);
    expect(invalid[0].validationMessages).toEqual(["Nonemployee comp can't be blank"]);

    const corrections = (sample('f1099nec-corrections.json') as Record<string, unknown>[]).map(toGqlObject).join('\n');
    const corrected = await graphql(ctx.url, credential, `mutation { updateF1099necStatements(statements: [ ${corrections} ]) {
      statements { recordNumber statement { otxId uploaderId nonemployeeComp recipientCity recipientZipCode } messages } errors } }`);
    expect(corrected.body.data?.updateF1099necStatements.statements.map((s: { messages: string[] }) => s.messages)).toEqual([[], []]);
    const rechecked = (await graphql(ctx.url, credential, check)).body.data?.getF1099necStatements.statements.nodes;
    expect(rechecked.every((n: { statementValid: boolean }) => n.statementValid)).toBe(true);

    const downloaded = await graphql(ctx.url, credential, `query { getStatements(uploaderIds: [${ids(ALL)}]) { errors statements { nodes { otxId uploaderId pdf } } } }`);
    const pdfs = downloaded.body.data?.getStatements.statements.nodes as { uploaderId: string; pdf: string }[];
    expect(pdfs.map((n) => n.uploaderId)).toEqual(ALL);
    const firstPdf = await pdfText(pdfs[0]!.pdf);
    expect(firstPdf).toContain('Leif');
    expect(firstPdf).toContain(environment === 'sandbox' ? 'SANDBOX' : 'DRAFT');

    const deleted = await graphql(ctx.url, credential, `mutation { deleteStatements(uploaderIds: [${ids(['23913'])}]) { errors deleteCount } }`);
    expect(deleted.body.data?.deleteStatements).toEqual({ errors: [], deleteCount: 1 });

    const remaining = ALL.filter((id) => id !== '23913');
    const finalized = await graphql(ctx.url, credential, `mutation { finalizeStatements(creditCard: { ${CARD[environment]} } uploaderIds: [${ids(remaining)}]) {
      errors messages { messages otxId uploaderId } successCount } }`);
    expect(finalized.body.data?.finalizeStatements).toMatchObject({ errors: [], successCount: 4 });

    const submitted = await graphql(ctx.url, credential, `mutation { submitStatements(uploaderIds: [${ids(ALL)}]) { errors successCount } }`);
    expect(submitted.body.data?.submitStatements).toEqual({ errors: [], successCount: 4 });

    const after = await graphql(ctx.url, credential, `query { getStatements(uploaderIds: [${ids(['23911'])}]) { statements { nodes { status submissionStatus pdf } } } }`);
    const final = after.body.data?.getStatements.statements.nodes[0];
    expect(final.status).toBe(2);
    expect(final.submissionStatus).toBe(environment === 'production' ? 1 : 0);
    const finalPdf = await pdfText(final.pdf as string);
    if (environment === 'sandbox') expect(finalPdf).toContain('SANDBOX');
    else expect(finalPdf).not.toMatch(/DRAFT|SANDBOX/);

    const out = await fetch(`${ctx.url}/v2/auth/sign_out`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credential) });
    expect(await out.json()).toEqual({ success: true });
    expect((await graphql(ctx.url, credential, '{ secretGreeting { response } }')).status).toBe(401);
  });
});
