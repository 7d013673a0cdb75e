/**
 * Caches fail open: with the cache Redis (CACHE_REDIS_URL, a server of the test's own) stopped
 * or hung, the gateway answers uncached within a second, logs the outage once, counts it, and
 * uses the cache again when Redis returns, without a restart. A mutation made while the cache
 * store was hung is not hidden by a stale entry afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOperation, signedInUser, takeUpstreamRequests } from '../support/cache';
import { useEmulator } from '../support/emulator';
import { TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGateway } from '../support/gateway';
import { ownRedis, type OwnRedis } from '../support/redis-server';
import { timed } from '../support/timing';
import { UPDATE_NEC } from '../support/statements';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
let cacheRedis: OwnRedis | undefined;
const gateway = useGateway(() => ({
  UPSTREAM_SANDBOX_URL: sandbox.url,
  UPSTREAM_PRODUCTION_URL: production.url,
  REDIS_URL: TEST_REDIS_URL,
  CACHE_REDIS_URL: cacheRedis?.url,
  CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
}));

beforeAll(async () => {
  cacheRedis = await ownRedis();
  await cacheRedis.start();
  await gateway.start();
});
afterAll(async () => {
  await gateway.current.stop();
  await cacheRedis?.stop();
});

const READ = '{ getStatements { statements { nodes { uploaderId recipientCity } } } }';
const PDFS = '{ getStatements { statements { nodes { uploaderId pdf } } } }';
const DEFINITIONS = '{ statementDefinitions { definitions { identifier } } }';

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${gateway.current.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

describe('when the cache store is away', () => {
  it('answers uncached within a second while it is stopped, and uses the cache again once it is back', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
    for (const query of [READ, PDFS, DEFINITIONS]) expect((await user.browser.graphql(query)).codes).toEqual([]);
    await takeUpstreamRequests(sandbox.url);
    const errorsBefore = await metric('statement_gateway_cache_store_errors_total');

    // The outage this test makes is logged once: a command that timed out earlier on a busy
    // machine (its own outage and recovery) is not this one.
    const logBefore = gateway.current.output().length;
    await cacheRedis?.stop();
    for (const query of [READ, PDFS, DEFINITIONS, READ]) {
      const { value, ms } = await timed(() => user.browser.graphql(query));
      expect(value.codes).toEqual([]);
      expect(ms).toBeLessThan(1_000);
    }
    // Reads went to the upstream (uncached); the definitions came from the process's own copy.
    const during = await takeUpstreamRequests(sandbox.url);
    expect(countOperation(during, 'getStatements')).toBeGreaterThanOrEqual(3);
    expect(countOperation(during, 'statementDefinitions')).toBe(0);
    expect(await metric('statement_gateway_cache_store_errors_total')).toBeGreaterThan(errorsBefore);

    await cacheRedis?.start();
    // The client reconnects within a second; then a read is stored and the next one is a hit.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await user.browser.graphql(READ)).codes).toEqual([]);
    await takeUpstreamRequests(sandbox.url);
    expect((await user.browser.graphql(READ)).codes).toEqual([]);
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);

    const since = gateway.current.output().slice(logBefore);
    const outages = since.split('\n').filter((line) => line.includes('"store.unavailable"') && line.includes('"caches"'));
    expect(outages).toHaveLength(1);
    expect(since).toContain('"store.recovered"');
  });

  it('answers within a second while it hangs, and a mutation made meanwhile shows once it answers again', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const target = user.statements[0];
    expect((await user.browser.graphql(READ)).body.data?.getStatements.statements.nodes[0].recipientCity).not.toBe('Albany');

    cacheRedis?.pause();
    try {
      const { value, ms } = await timed(() => user.browser.graphql(UPDATE_NEC, { s: [{ uploaderId: target?.uploaderId, statement: { recipientCity: 'Albany' } }] }));
      expect(value.codes).toEqual([]);
      expect(ms).toBeLessThan(1_500);
      const read = await timed(() => user.browser.graphql(READ));
      expect(read.ms).toBeLessThan(1_000);
      expect(read.value.body.data?.getStatements.statements.nodes[0].recipientCity).toBe('Albany');
    } finally {
      cacheRedis?.resume();
    }
    // The cached answer from before the update is still in Redis: the invalidation the gateway
    // could not deliver is replayed before it is read.
    const after = await user.browser.graphql(READ);
    expect(after.body.data?.getStatements.statements.nodes[0].recipientCity).toBe('Albany');
  });
});
