/**
 * Statement reads cached per identity, and invalidated by every kind of mutation before the
 * mutation answers: the next read shows the change at once, PDFs included.
 */
import { describe, expect, it } from 'vitest';
import { cleanResult } from '../../src/cache/use-read-cache';
import { countOperation, signedInUser, takeUpstreamRequests } from '../support/cache';
import { control } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { pdfText } from '../support/pdf-text';
import { ADD_NEC, FINALIZE, SUBMIT, UPDATE_NEC, VALID_CARD, VALID_NEC } from '../support/statements';

const { sandbox, production, gateway } = useGatewayOnEmulators();

const READ = '{ getStatements { statements { nodes { otxId uploaderId recipientCity status submissionStatus } } errors } }';
const READ_NEC = '{ getF1099necStatements { statements { nodes { otxId uploaderId recipientCity } } errors } }';
const PDFS = '{ getF1099necStatements { statements { nodes { uploaderId pdf } } } }';

type Node = { otxId: string; uploaderId: string; recipientCity: string; status: number; submissionStatus: number; pdf: string };
const nodes = (answer: { body: { data?: Record<string, { statements: { nodes: Node[] } }> | null } }, field = 'getStatements'): Node[] =>
  answer.body.data?.[field]?.statements.nodes ?? [];

async function pdfOf(user: Awaited<ReturnType<typeof signedInUser>>, uploaderId: string): Promise<string> {
  const pdf = nodes(await user.browser.graphql(PDFS), 'getF1099necStatements').find((node) => node.uploaderId === uploaderId)?.pdf;
  if (!pdf) throw new Error(`no PDF for ${uploaderId}`);
  return pdfText(pdf);
}

describe('the statement read cache', () => {
  it('answers a repeated read from the cache, without reaching the upstream', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 3 });
    await takeUpstreamRequests(sandbox.url);
    const first = await user.browser.graphql(READ);
    expect(nodes(first)).toHaveLength(3);
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'getStatements')).toBe(1);
    for (const query of [READ, READ]) expect((await user.browser.graphql(query)).body).toEqual(first.body);
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
  });

  it('never answers a forged, ended or expired cookie from the cache', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    expect(nodes(await user.browser.graphql(READ))).toHaveLength(1);
    const cookie = user.browser.cookie;
    expect((await user.browser.graphql('mutation { logout }')).codes).toEqual([]);
    user.browser.cookie = cookie;
    const replayed = await user.browser.graphql(READ);
    expect(replayed.codes).toEqual(['UNAUTHENTICATED']);
    expect(replayed.body.data ?? null).toBeNull();
    user.browser.cookie = `${cookie?.slice(0, -4) ?? 'sgw_session='}AAAA`;
    expect((await user.browser.graphql(READ)).codes).toEqual(['UNAUTHENTICATED']);
  });

  it("stops answering from the cache once the upstream credential's own expiry has passed", async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { tokenTtlSeconds: 2 });
    try {
      const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
      expect(nodes(await user.browser.graphql(READ))).toHaveLength(1);
      expect(nodes(await user.browser.graphql(READ))).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      expect((await user.browser.graphql(READ)).codes).toEqual(['UNAUTHENTICATED']);
    } finally {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { tokenTtlSeconds: 1_209_600 });
    }
  });

  it('does not keep an answer with errors, at the top or in a payload', () => {
    expect(cleanResult({ data: { getStatements: { statements: null, errors: [] } } })).toBe(true);
    expect(cleanResult({ data: { getStatements: { statements: null, errors: ['Too many requests'] } } })).toBe(false);
    expect(cleanResult({ data: { getStatements: null } })).toBe(false);
    expect(cleanResult({ errors: [{ message: 'x' }], data: null })).toBe(false);
  });
});

describe('invalidation by mutations', () => {
  it('shows an added statement at once', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
    expect(nodes(await user.browser.graphql(READ))).toHaveLength(2);
    expect(nodes(await user.browser.graphql(READ_NEC), 'getF1099necStatements')).toHaveLength(2);
    expect((await user.browser.graphql(ADD_NEC, { s: [{ ...VALID_NEC, uploaderId: 'added-1' }] })).codes).toEqual([]);
    expect(nodes(await user.browser.graphql(READ)).map((node) => node.uploaderId)).toContain('added-1');
    expect(nodes(await user.browser.graphql(READ_NEC), 'getF1099necStatements')).toHaveLength(3);
  });

  it.each([['uploaderId'], ['otxId']])('shows an update by %s at once, in the reads and in the PDF', async (by) => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
    const target = user.statements[0];
    if (!target) throw new Error('no statement');
    expect(nodes(await user.browser.graphql(READ)).find((node) => node.uploaderId === target.uploaderId)?.recipientCity).not.toBe('Albany');
    expect(await pdfOf(user, target.uploaderId)).not.toContain('Albany');
    const selector = by === 'otxId' ? { otxId: target.otxId } : { uploaderId: target.uploaderId };
    const updated = await user.browser.graphql(UPDATE_NEC, { s: [{ ...selector, statement: { recipientCity: 'Albany' } }] });
    expect(updated.codes).toEqual([]);
    expect(nodes(await user.browser.graphql(READ)).find((node) => node.uploaderId === target.uploaderId)?.recipientCity).toBe('Albany');
    expect(await pdfOf(user, target.uploaderId)).toContain('Albany');
    // The other statement's PDF stays cached.
    await takeUpstreamRequests(sandbox.url);
    await user.browser.graphql(PDFS);
    const requests = await takeUpstreamRequests(sandbox.url);
    expect(requests.map((request) => request.operations)).toEqual([['getF1099necStatements']]);
  });

  it('shows an update whose list of statements is sent as a single object (coerced to a list)', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const target = user.statements[0];
    if (!target) throw new Error('no statement');
    expect(await pdfOf(user, target.uploaderId)).not.toContain('Albany');
    const updated = await user.browser.graphql(UPDATE_NEC, { s: { otxId: target.otxId, statement: { recipientCity: 'Albany' } } });
    expect(updated.codes).toEqual([]);
    expect(await pdfOf(user, target.uploaderId)).toContain('Albany');
  });

  it('never updates beside a login in the same document (refused, BAD_REQUEST), so no cache of either identity goes stale', async () => {
    const first = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const second = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const target = second.statements[0];
    if (!target) throw new Error('no statement');
    expect(await pdfOf(second, target.uploaderId)).not.toContain('Albany');
    const both = await first.browser.graphql(
      `mutation($email: String!, $s: [F1099necUpdateInput!]!) {
        login(email: $email, password: "a-long-enough-password-123") { uid }
        updateF1099necStatements(statements: $s) { errors }
      }`,
      { email: second.email, s: [{ uploaderId: target.uploaderId, statement: { recipientCity: 'Albany' } }] },
    );
    expect(both.codes).toEqual(['BAD_REQUEST']);
    expect(await pdfOf(second, target.uploaderId)).not.toContain('Albany');
  });

  it('shows a deletion at once', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
    const [gone, kept] = user.statements;
    expect(nodes(await user.browser.graphql(READ))).toHaveLength(2);
    expect(nodes(await user.browser.graphql(PDFS), 'getF1099necStatements')).toHaveLength(2);
    const deleted = await user.browser.graphql('mutation($ids: [String!]) { deleteStatements(otxIds: $ids) { errors } }', { ids: [gone?.otxId] });
    expect(deleted.codes).toEqual([]);
    expect(nodes(await user.browser.graphql(READ)).map((node) => node.otxId)).toEqual([kept?.otxId]);
    expect(nodes(await user.browser.graphql(PDFS), 'getF1099necStatements').map((node) => node.uploaderId)).toEqual([kept?.uploaderId]);
  });

  it('shows a finalize (the DRAFT watermark gone) and a submit at once, in production', async () => {
    const user = await signedInUser(gateway.current.url, production.url, { count: 1, environment: 'PRODUCTION' });
    const target = user.statements[0];
    if (!target) throw new Error('no statement');
    expect(nodes(await user.browser.graphql(READ))[0]?.status).toBe(1);
    expect(await pdfOf(user, target.uploaderId)).toContain('DRAFT');

    const finalized = await user.browser.graphql(FINALIZE, { u: [target.uploaderId], card: VALID_CARD });
    expect(finalized.codes).toEqual([]);
    expect(finalized.body.data?.finalizeStatements.successCount).toBe(1);
    expect(nodes(await user.browser.graphql(READ))[0]?.status).toBe(2);
    expect(await pdfOf(user, target.uploaderId)).not.toContain('DRAFT');

    const before = nodes(await user.browser.graphql(READ))[0]?.submissionStatus;
    const submitted = await user.browser.graphql(SUBMIT, { u: [target.uploaderId] });
    expect(submitted.body.data?.submitStatements.successCount).toBe(1);
    expect(nodes(await user.browser.graphql(READ))[0]?.submissionStatus).not.toBe(before);
  });
});
