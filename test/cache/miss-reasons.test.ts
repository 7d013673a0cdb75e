/**
 * `statement_gateway_cache_misses_total{cache, reason}`: each reason, for each cache it applies
 * to, produced by what it names. A gateway with short TTLs, its caches on a Redis of the test's own
 * (stopped in the last test, for `store_down`; sessions stay on the tests' Redis).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInUser, type TestUser } from '../support/cache';
import { useEmulator } from '../support/emulator';
import { TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGateway } from '../support/gateway';
import { scrape } from '../support/metrics';
import { ownRedis, type OwnRedis } from '../support/redis-server';
import { UPDATE_NEC } from '../support/statements';

const sandbox = useEmulator('sandbox', { resetBeforeEach: false });
const production = useEmulator('production', { resetBeforeEach: false });
let cacheRedis: OwnRedis | undefined;
const gateway = useGateway(() => ({
  UPSTREAM_SANDBOX_URL: sandbox.url,
  UPSTREAM_PRODUCTION_URL: production.url,
  REDIS_URL: TEST_REDIS_URL,
  CACHE_REDIS_URL: cacheRedis?.url,
  CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
  CACHE_READS_TTL: '1s',
  CACHE_PDF_TTL: '1s',
  CACHE_DEFINITIONS_FRESH: '1s',
  CACHE_DEFINITIONS_STALE_IF_ERROR: '1s',
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

const READ = '{ getStatements { statements { nodes { otxId uploaderId recipientCity } } } }';
const PDFS = '{ getF1099necStatements { statements { nodes { otxId pdf } } } }';
const DEFINITIONS = '{ statementDefinitions { definitions { identifier } } }';
const REASONS = ['cold', 'expired', 'bypass', 'invalidated', 'purged', 'store_down'] as const;
type Reason = (typeof REASONS)[number];
type Cache = 'statements' | 'pdf' | 'definitions';

async function misses(cache: Cache): Promise<Record<Reason, number>> {
  const metrics = await scrape(gateway.current.url);
  return Object.fromEntries(REASONS.map((reason) => [reason, metrics.sum('statement_gateway_cache_misses_total', { cache, reason })])) as Record<Reason, number>;
}

/** What `action` added to the cache's misses, by reason (reasons are counted as soon as they are known). */
async function missesOf(cache: Cache, action: () => Promise<unknown>, expected: Partial<Record<Reason, number>>): Promise<void> {
  const before = await misses(cache);
  await action();
  const want = Object.fromEntries(REASONS.map((reason) => [reason, expected[reason] ?? 0]));
  let added: Record<string, number> = {};
  for (let attempt = 0; attempt < 20; attempt++) {
    const after = await misses(cache);
    added = Object.fromEntries(REASONS.map((reason) => [reason, after[reason] - before[reason]]));
    if (JSON.stringify(added) === JSON.stringify(want)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(added).toEqual(want);
}

async function purge(body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${gateway.current.url}/ops/cache/purge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'test', ...body }) });
  expect(response.status).toBe(200);
}

const ok = async (answer: Promise<{ codes: string[] }>) => expect((await answer).codes).toEqual([]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the statement read cache counts each miss with its reason', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
  });

  it('cold: never held', () => missesOf('statements', () => ok(user.browser.graphql(READ)), { cold: 1 }));
  it('bypass: Cache-Control: no-cache', () => missesOf('statements', () => ok(user.browser.graphql(READ, {}, { headers: { 'cache-control': 'no-cache' } })), { bypass: 1 }));
  it('invalidated: a mutation through the gateway', async () => {
    await ok(user.browser.graphql(READ));
    await ok(user.browser.graphql(UPDATE_NEC, { s: [{ otxId: user.statements[0]?.otxId, statement: { recipientCity: 'Albany' } }] }));
    await missesOf('statements', () => ok(user.browser.graphql(READ)), { invalidated: 1 });
  });
  it('purged: an operator purge of the identity', async () => {
    await ok(user.browser.graphql(READ));
    await purge({ scope: 'identity', environment: 'sandbox', uid: user.email });
    await missesOf('statements', () => ok(user.browser.graphql(READ)), { purged: 1 });
  });
  it('expired: past its TTL', async () => {
    await ok(user.browser.graphql(READ));
    await sleep(1_100);
    await missesOf('statements', () => ok(user.browser.graphql(READ)), { expired: 1 });
  });
});

describe('the PDF cache counts each missing PDF with its reason', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
  });

  it('cold: never held', () => missesOf('pdf', () => ok(user.browser.graphql(PDFS)), { cold: 2 }));
  it('invalidated: the statement changed by a mutation through the gateway', async () => {
    await ok(user.browser.graphql(PDFS));
    await ok(user.browser.graphql(UPDATE_NEC, { s: [{ otxId: user.statements[0]?.otxId, statement: { recipientCity: 'Albany' } }] }));
    await missesOf('pdf', () => ok(user.browser.graphql(PDFS)), { invalidated: 1 });
  });
  it('purged: an operator purge of one statement', async () => {
    await ok(user.browser.graphql(PDFS));
    await purge({ scope: 'statement', environment: 'sandbox', uid: user.email, otxId: user.statements[1]?.otxId });
    await missesOf('pdf', () => ok(user.browser.graphql(PDFS)), { purged: 1 });
  });
  it('expired: past its TTL', async () => {
    await ok(user.browser.graphql(PDFS));
    await sleep(1_100);
    await missesOf('pdf', () => ok(user.browser.graphql(PDFS)), { expired: 2 });
  });
});

describe('the definitions cache counts each miss with its reason', () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
  });

  it('cold, then expired past its fresh and stale-if-error times', async () => {
    await missesOf('definitions', () => ok(user.browser.graphql(DEFINITIONS)), { cold: 1 });
    await sleep(2_100);
    await missesOf('definitions', () => ok(user.browser.graphql(DEFINITIONS)), { expired: 1 });
  });
  it('purged: an operator purge of the definitions', async () => {
    await ok(user.browser.graphql(DEFINITIONS));
    await purge({ scope: 'definitions', environment: 'sandbox' });
    await missesOf('definitions', () => ok(user.browser.graphql(DEFINITIONS)), { purged: 1 });
  });
});

describe('every cache counts store_down while its store cannot be reached', () => {
  it('statements, PDFs and definitions', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    await ok(user.browser.graphql(DEFINITIONS));
    await cacheRedis?.stop();
    await sleep(2_100);
    await missesOf('statements', () => ok(user.browser.graphql(READ)), { store_down: 1 });
    await missesOf('pdf', () => ok(user.browser.graphql(PDFS)), { store_down: 1 });
    await missesOf('definitions', () => ok(user.browser.graphql(DEFINITIONS)), { store_down: 1 });
  }, 20_000);
});
