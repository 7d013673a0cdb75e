/**
 * PDFs per identity and statement: a read selecting `pdf` still asks the upstream for the
 * statements (access is re-checked) but only for the PDFs the cache does not hold.
 */
import { describe, expect, it } from 'vitest';
import { signedInUser, takeUpstreamRequests } from '../support/cache';
import { graphql, signIn } from '../support/emulator';
import { startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGatewayBehindRecordingProxy } from '../support/gateway';

const setup = useGatewayBehindRecordingProxy();
const { sandbox, production, gateway } = setup;

const NEC_PDFS = '{ getF1099necStatements { statements { nodes { otxId uploaderId pdf } } errors } }';

function upstreamBytes(): number {
  return setup.proxy.exchanges.reduce((sum, exchange) => sum + exchange.responseBytes, 0);
}

describe('the PDF cache', () => {
  it('fetches each PDF from the upstream once: a second read asks for the statements only', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 5 });
    await takeUpstreamRequests(sandbox.url);
    setup.proxy.exchanges.splice(0);

    const first = await user.browser.graphql(NEC_PDFS);
    expect(first.codes).toEqual([]);
    const coldBytes = upstreamBytes();
    const cold = await takeUpstreamRequests(sandbox.url);
    // The statements without PDFs, then one batched call for the five PDFs.
    expect(cold.map((request) => request.operations)).toEqual([['getF1099necStatements'], ['getStatements']]);

    setup.proxy.exchanges.splice(0);
    const second = await user.browser.graphql(NEC_PDFS);
    expect(second.body).toEqual(first.body);
    const warm = await takeUpstreamRequests(sandbox.url);
    expect(warm.map((request) => request.operations)).toEqual([['getF1099necStatements']]);
    expect(warm[0]?.uid).toBe(user.email);
    // No PDF crossed the wire the second time: far fewer bytes (five PDFs are ~35 KiB).
    expect(upstreamBytes()).toBeLessThan(coldBytes / 5);
  });

  it('answers the same PDFs as the upstream itself, under aliases, in fragments and edges', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
    const query = `query Mixed { getStatements { statements {
      edges { node { otxId ...Pdf } }
      nodes { uploaderId document: pdf pdf }
    } } }
    fragment Pdf on Statement { file: pdf }`;
    const direct = await graphql(sandbox.url, await signIn(sandbox.url, user.email, 'a-long-enough-password-123'), query);
    for (let round = 0; round < 2; round++) {
      const answer = await user.browser.graphql(query);
      expect(answer.codes).toEqual([]);
      expect(answer.body.data).toEqual(direct.body.data);
      expect(JSON.stringify(answer.body)).not.toContain('_sgwPdf');
    }
  });

  it('re-checks access on every read: a statement of another user is never answered from the cache', async () => {
    const owner = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const other = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    const otxId = owner.statements[0]?.otxId;
    const query = 'query($ids: [String!]) { getStatements(otxIds: $ids) { statements { nodes { otxId pdf } } } }';
    expect((await owner.browser.graphql(query, { ids: [otxId] })).body.data?.getStatements.statements.nodes).toHaveLength(1);
    const answer = await other.browser.graphql(query, { ids: [otxId] });
    expect(answer.body.data?.getStatements.statements.nodes).toEqual([]);
  });

  it('stores no PDF larger than CACHE_PDF_MAX_BYTES', async () => {
    const small = await startTestGateway({
      UPSTREAM_SANDBOX_URL: sandbox.url,
      UPSTREAM_PRODUCTION_URL: production.url,
      REDIS_URL: TEST_REDIS_URL,
      CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
      CACHE_PDF_MAX_BYTES: '1000',
    });
    try {
      const user = await signedInUser(small.url, sandbox.url, { count: 2 });
      await takeUpstreamRequests(sandbox.url);
      for (let round = 0; round < 2; round++) {
        expect((await user.browser.graphql(NEC_PDFS)).codes).toEqual([]);
        const requests = await takeUpstreamRequests(sandbox.url);
        expect(requests.map((request) => request.operations)).toEqual([['getF1099necStatements'], ['getStatements']]);
      }
    } finally {
      await small.stop();
    }
  });
});
