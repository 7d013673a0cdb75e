/**
 * `POST /ops/cache/purge` on two replicas sharing one Redis: a change made at the upstream
 * directly (another integration) is invisible through the read cache until an operator purges,
 * then visible on both replicas within a second; a dry run drops nothing. Prints the purge's
 * latency to both replicas.
 */
import { describe, expect, it } from 'vitest';
import { signedInUser, takeUpstreamRequests, countOperation, type TestUser } from '../support/cache';
import { control, graphql, signIn } from '../support/emulator';
import { Browser, useGatewayReplicas, type TestGateway } from '../support/gateway';
import { scrape } from '../support/metrics';
import { UPDATE_NEC } from '../support/statements';

const { sandbox, gateways } = useGatewayReplicas(2);

const READ = '{ getStatements { statements { nodes { otxId recipientCity } } } }';
const DEFINITIONS = '{ statementDefinitions { definitions { identifier } } }';
type Nodes = { getStatements: { statements: { nodes: { otxId: string; recipientCity: string }[] } } };

/** The user's browser on each replica (one session). */
function onBoth(user: TestUser): Browser[] {
  return gateways.map((gateway) => {
    const browser = new Browser(gateway.url);
    browser.cookie = user.browser.cookie;
    return browser;
  });
}

async function nodes(browser: Browser) {
  const answer = await browser.graphql<Nodes>(READ);
  expect(answer.codes).toEqual([]);
  return answer.body.data?.getStatements.statements.nodes ?? [];
}

async function purge(gateway: TestGateway, body: Record<string, unknown>) {
  const response = await fetch(`${gateway.url}/ops/cache/purge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'changed in the upstream app', ...body }) });
  expect(response.status).toBe(200);
  return (await response.json()) as { dryRun: boolean; purged: { definitions: number; statements: number; pdfs: number } };
}

/** Milliseconds until `seen` holds on every browser (polled), failing past `withinMs`. */
async function untilEvery(browsers: Browser[], seen: (browser: Browser) => Promise<boolean>, withinMs: number): Promise<number[]> {
  const started = performance.now();
  return Promise.all(browsers.map(async (browser) => {
    while (!(await seen(browser))) {
      if (performance.now() - started > withinMs) throw new Error(`not seen within ${withinMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return performance.now() - started;
  }));
}

describe('a cache purge on two replicas', () => {
  it('identity: a statement added at the upstream directly shows on both replicas within a second of the purge, not before, and not after a dry run', async () => {
    const user = await signedInUser(gateways[0]!.url, sandbox.url, { count: 2 });
    const browsers = onBoth(user);
    for (const browser of browsers) expect(await nodes(browser)).toHaveLength(2);
    await control(sandbox.url, 'POST', '/__emulator/statements', { email: user.email, form: 'F1099nec', count: 1 });
    for (const browser of browsers) expect(await nodes(browser)).toHaveLength(2);

    const dry = await purge(gateways[1]!, { scope: 'identity', environment: 'sandbox', uid: user.email, dryRun: true });
    expect(dry).toEqual({ dryRun: true, purged: { definitions: 0, statements: 1, pdfs: 0 } });
    for (const browser of browsers) expect(await nodes(browser)).toHaveLength(2);

    const sent = performance.now();
    const real = await purge(gateways[1]!, { scope: 'identity', environment: 'sandbox', uid: user.email });
    const answered = performance.now() - sent;
    expect(real).toEqual({ dryRun: false, purged: { definitions: 0, statements: 1, pdfs: 0 } });
    const visible = await untilEvery(browsers, async (browser) => (await nodes(browser)).length === 3, 1_000);
    console.log(`identity purge: answered in ${answered.toFixed(1)} ms; the new statement visible on the replicas ${visible.map((ms) => `${ms.toFixed(1)} ms`).join(' and ')} after the answer`);
    // The audit lines of both calls, with the request id, the uid only as a keyed hash.
    const audits = gateways[1]!.output().split('\n').filter((line) => line.includes('"ops.cache.purge"')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audits.map((line) => [line.scope, line.dryRun, line.counts])).toEqual([['identity', true, { definitions: 0, statements: 1, pdfs: 0 }], ['identity', false, { definitions: 0, statements: 1, pdfs: 0 }]]);
    for (const line of audits) {
      expect(line).toMatchObject({ reason: 'changed in the upstream app', clientAddress: '127.0.0.1', environment: 'sandbox' });
      expect(line.requestId).toEqual(expect.any(String));
      expect(JSON.stringify(line)).not.toContain(user.email);
    }
  });

  it('statement: an update made at the upstream directly shows on both replicas within a second of the purge', async () => {
    const user = await signedInUser(gateways[0]!.url, sandbox.url, { count: 2 });
    const browsers = onBoth(user);
    const target = user.statements[0]!;
    for (const browser of browsers) expect((await nodes(browser)).find((node) => node.otxId === target.otxId)?.recipientCity).not.toBe('Albany');
    const direct = await graphql(sandbox.url, await signIn(sandbox.url, user.email, 'a-long-enough-password-123'), UPDATE_NEC, { s: [{ otxId: target.otxId, statement: { recipientCity: 'Albany' } }] });
    expect(direct.body.errors ?? []).toEqual([]);
    for (const browser of browsers) expect((await nodes(browser)).find((node) => node.otxId === target.otxId)?.recipientCity).not.toBe('Albany');

    expect((await purge(gateways[0]!, { scope: 'statement', environment: 'sandbox', uid: user.email, otxId: target.otxId, dryRun: true })).purged.statements).toBe(1);
    for (const browser of browsers) expect((await nodes(browser)).find((node) => node.otxId === target.otxId)?.recipientCity).not.toBe('Albany');
    await purge(gateways[0]!, { scope: 'statement', environment: 'sandbox', uid: user.email, otxId: target.otxId });
    await untilEvery(browsers, async (browser) => (await nodes(browser)).find((node) => node.otxId === target.otxId)?.recipientCity === 'Albany', 1_000);
  });

  it('definitions: both replicas forget their copy in memory and ask again, within a second of the purge; a dry run forgets nothing', async () => {
    const user = await signedInUser(gateways[0]!.url, sandbox.url, { count: 0 });
    const browsers = onBoth(user);
    const read = async (browser: Browser) => expect((await browser.graphql(DEFINITIONS)).codes).toEqual([]);
    for (const browser of browsers) await read(browser);
    await takeUpstreamRequests(sandbox.url);
    expect((await purge(gateways[0]!, { scope: 'definitions', environment: 'sandbox', dryRun: true })).purged.definitions).toBe(1);
    for (const browser of browsers) await read(browser);
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'statementDefinitions')).toBe(0);

    const purgedMisses = async (gateway: TestGateway) => (await scrape(gateway.url)).sum('statement_gateway_cache_misses_total', { cache: 'definitions', reason: 'purged' });
    const before = await Promise.all(gateways.map(purgedMisses));
    expect(await purge(gateways[0]!, { scope: 'definitions', environment: 'sandbox' })).toEqual({ dryRun: false, purged: { definitions: 1, statements: 0, pdfs: 0 } });
    // Each replica's next read misses (`purged`): its copy in memory went with the notice.
    const forgotten = await untilEvery(browsers, async (browser) => {
      await read(browser);
      const index = browsers.indexOf(browser);
      return (await purgedMisses(gateways[index]!)) > before[index]!;
    }, 1_000);
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'statementDefinitions')).toBeGreaterThanOrEqual(1);
    console.log(`definitions purge: each replica's copy in memory forgotten by its next read, ${forgotten.map((ms) => `${ms.toFixed(1)} ms`).join(' and ')} after the answer`);
    for (const gateway of gateways) expect((await scrape(gateway.url)).sum('statement_gateway_cache_purges_total', { scope: 'definitions' })).toBe(gateway === gateways[0] ? 1 : 0);
  });
});
