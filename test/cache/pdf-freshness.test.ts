/**
 * No stale PDF after a change made elsewhere: a cached PDF is served only for the statement as the
 * upstream answered it in the same read. A statement updated directly at the upstream (another
 * integration, the upstream's own application), or finalized there in production, comes back
 * with its new PDF on the very next read through the gateway, whether or not the client selected
 * the fields that changed.
 */
import { describe, expect, it } from 'vitest';
import { signedInUser, takeUpstreamRequests, type TestUser } from '../support/cache';
import { graphql, signIn } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { pdfText } from '../support/pdf-text';
import { FINALIZE, UPDATE_NEC, VALID_CARD } from '../support/statements';

const { sandbox, production, gateway } = useGatewayOnEmulators();

/** Only the PDF: the gateway asks for the statement's fields itself. */
const PDF_ONLY = '{ getF1099necStatements { statements { nodes { pdf } } } }';
const PASSWORD = 'a-long-enough-password-123';

async function onlyPdf(user: TestUser): Promise<string> {
  const answer = await user.browser.graphql<{ getF1099necStatements: { statements: { nodes: { pdf: string }[] } } }>(PDF_ONLY);
  expect(answer.codes).toEqual([]);
  const pdf = answer.body.data?.getF1099necStatements.statements.nodes[0]?.pdf;
  if (!pdf) throw new Error('no PDF');
  expect(JSON.stringify(answer.body)).not.toMatch(/_sgw/);
  return pdfText(pdf);
}

describe('a PDF changed outside the gateway', () => {
  it('comes back with the statement updated directly at the upstream, on the next read', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const target = user.statements[0];
    if (!target) throw new Error('no statement');
    expect(await onlyPdf(user)).not.toContain('Albany');
    // Held: the second read takes the PDF from the cache.
    await takeUpstreamRequests(sandbox.url);
    expect(await onlyPdf(user)).not.toContain('Albany');
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.operations)).toEqual([['getF1099necStatements']]);

    const direct = await graphql(sandbox.url, await signIn(sandbox.url, user.email, PASSWORD), UPDATE_NEC, { s: [{ otxId: target.otxId, statement: { recipientCity: 'Albany' } }] });
    expect(direct.body.errors ?? []).toEqual([]);
    expect(await onlyPdf(user)).toContain('Albany');
    // And the new one is held in its place.
    await takeUpstreamRequests(sandbox.url);
    expect(await onlyPdf(user)).toContain('Albany');
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.operations)).toEqual([['getF1099necStatements']]);
  });

  it('comes back without the DRAFT watermark once finalized directly at the upstream, in production', async () => {
    const user = await signedInUser(gateway.current.url, production.url, { count: 1, environment: 'PRODUCTION' });
    const target = user.statements[0];
    if (!target) throw new Error('no statement');
    expect(await onlyPdf(user)).toContain('DRAFT');
    expect(await onlyPdf(user)).toContain('DRAFT');
    const direct = await graphql(production.url, await signIn(production.url, user.email, PASSWORD), FINALIZE, { u: [target.uploaderId], card: VALID_CARD });
    expect(direct.body.errors ?? []).toEqual([]);
    expect(direct.body.data?.finalizeStatements.successCount).toBe(1);
    expect(await onlyPdf(user)).not.toContain('DRAFT');
  });
});
