/**
 * Statement reads and PDFs are sealed in the cache store (AES-256-GCM, a key per identity derived
 * from CREDENTIAL_KEY): Redis holds no statement field and no PDF, an entry that does not open is
 * a miss (the answer stays right), and CREDENTIAL_KEY_PREVIOUS opens entries of the previous key.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { identityScope } from '../../src/cache/scope';
import { createSealedValues } from '../../src/cache/sealed-values';
import { cacheKeys } from '../../src/cache/cache-store';
import { createDerivedKeys } from '../../src/derived-keys';
import { upstreamTarget } from '../../src/upstream/target';
import { signedInUser, takeUpstreamRequests, type TestUser } from '../support/cache';
import { scrape } from '../support/metrics';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGatewayOnEmulators } from '../support/gateway';

const { sandbox, production, gateway } = useGatewayOnEmulators();
const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.disconnect());

const READ = '{ getF1099necStatements { statements { nodes { otxId uploaderId recipientTin recipientFirstName recipientLastName recipientCity } } } }';
const PDFS = '{ getF1099necStatements { statements { nodes { otxId uploaderId recipientTin pdf } } } }';

type Nec = { otxId: string; uploaderId: string; recipientTin: string; recipientFirstName: string; recipientLastName: string; recipientCity: string; pdf: string };
const nodesOf = (body: { data?: { getF1099necStatements?: { statements: { nodes: Nec[] } } } | null }): Nec[] => body.data?.getF1099necStatements?.statements.nodes ?? [];

/**
 * Every value (strings, hash fields and values, sorted-set members) of keys matching `pattern`, by
 * key. The tests look at one user's scope: other files share this Redis, and the emulator's seeded
 * values (TINs, uploaderIds) repeat between users.
 */
async function cacheContents(pattern: string): Promise<Map<string, string>> {
  const contents = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'string') contents.set(key, (await redis.get(key)) ?? '');
      else if (type === 'hash') contents.set(key, Object.entries(await redis.hgetall(key)).flat().join('\n'));
      else if (type === 'zset') contents.set(key, (await redis.zrange(key, 0, -1)).join('\n'));
      else if (type === 'set') contents.set(key, (await redis.smembers(key)).join('\n'));
    }
  } while (cursor !== '0');
  return contents;
}

/** The Redis pattern of everything cached for one user (hash tag braces escaped). */
const keysOf = (user: TestUser) => `sgw:cache:\\{${scopeOf(user)}\\}*`;

/** The PDFs are written after the answer (not awaited): wait for them. */
async function pdfsStored(user: TestUser, count: number): Promise<void> {
  for (let waited = 0; waited < 2_000; waited += 20) {
    if ((await redis.zcard(`sgw:cache:{${scopeOf(user)}}:pdf#order`)) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the PDFs were not stored');
}

const values = createSealedValues({ keys: createDerivedKeys(Buffer.from(TEST_CREDENTIAL_KEY, 'base64')) });
/** The hash tag the user's groups are stored under: the identity's scope, keyed (sealed-values.ts). */
function scopeOf(user: TestUser): string {
  const stored = values.groups(cacheKeys.reads(identityScope(upstreamTarget('sandbox', sandbox.url).cacheNamespace, user.email)))[0] ?? '';
  return stored.slice(stored.indexOf('{') + 1, stored.indexOf('}'));
}

async function pdfOperations(user: TestUser): Promise<string[][]> {
  await takeUpstreamRequests(sandbox.url);
  const answer = await user.browser.graphql(PDFS);
  expect(answer.codes).toEqual([]);
  return (await takeUpstreamRequests(sandbox.url)).map((request) => request.operations);
}

describe('the caches at rest', () => {
  it('hold no statement field and no PDF in Redis, and still answer the second read from the cache', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 3 });
    const read = await user.browser.graphql(READ);
    const withPdfs = await user.browser.graphql(PDFS);
    const statements = nodesOf(read.body);
    expect(statements).toHaveLength(3);
    expect(nodesOf(withPdfs.body).every((node) => node.pdf.startsWith('JVBERi0'))).toBe(true);
    await pdfsStored(user, 3);

    const contents = await cacheContents(keysOf(user));
    const own = [...contents.keys()];
    // The reads and the three PDFs are there (with their indexes), sealed.
    expect(own.filter((key) => key.includes(':pdf:'))).toHaveLength(3);
    expect(own.filter((key) => key.includes(':reads:'))).toHaveLength(1);
    const secrets = statements.flatMap((node) => [node.recipientTin, node.recipientFirstName, node.recipientLastName, node.recipientCity]);
    const identifiers = statements.flatMap((node) => [node.otxId, node.uploaderId]);
    for (const [key, value] of contents) {
      for (const secret of [...secrets, ...identifiers, 'JVBERi0', '%PDF']) expect(value.includes(secret), `${secret} in ${key}`).toBe(false);
      // Keys name members by a keyed hash, never by otxId or uploaderId.
      for (const identifier of identifiers) expect(key.includes(identifier), `${identifier} in a key`).toBe(false);
    }

    await takeUpstreamRequests(sandbox.url);
    expect((await user.browser.graphql(READ)).body).toEqual(read.body);
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
    expect(await pdfOperations(user)).toEqual([['getF1099necStatements']]);
  });

  it('treats an entry tampered with in Redis as a miss and still answers the right PDF', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
    const first = await user.browser.graphql(PDFS);
    await pdfsStored(user, 2);
    const [key = ''] = [...(await cacheContents(keysOf(user))).keys()].filter((name) => name.includes('}:pdf:'));
    const sealed = await redis.get(key);
    expect(sealed).not.toBeNull();
    // One bit of the ciphertext flipped, its TTL kept.
    const raw = Buffer.from(sealed?.slice(4) ?? '', 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    await redis.set(key, `${sealed?.slice(0, 4) ?? ''}${raw.toString('base64')}`, 'KEEPTTL');

    await takeUpstreamRequests(sandbox.url);
    const unopened = (await scrape(gateway.current.url)).sum('statement_gateway_cache_store_errors_total', { operation: 'open' });
    const again = await user.browser.graphql(PDFS);
    expect(again.codes).toEqual([]);
    expect(again.body).toEqual(first.body);
    // The one PDF that did not open was fetched again (the other came from the cache).
    const requests = await takeUpstreamRequests(sandbox.url);
    expect(requests.map((request) => request.operations)).toEqual([['getF1099necStatements'], ['getStatements']]);
    expect(await pdfOperations(user)).toEqual([['getF1099necStatements']]);
    // Counted where an operator looks: replicas with different keys would miss silently otherwise.
    expect((await scrape(gateway.current.url)).sum('statement_gateway_cache_store_errors_total', { operation: 'open' })).toBe(unopened + 1);
  });

  it('opens the entries of the previous key on a gateway whose CREDENTIAL_KEY was rotated', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 2 });
    const read = await user.browser.graphql(READ);
    const pdfs = await user.browser.graphql(PDFS);
    await pdfsStored(user, 2);
    const rotated = await startTestGateway({
      UPSTREAM_SANDBOX_URL: sandbox.url,
      UPSTREAM_PRODUCTION_URL: production.url,
      REDIS_URL: TEST_REDIS_URL,
      CREDENTIAL_KEY: randomBytes(32).toString('base64'),
      CREDENTIAL_KEY_PREVIOUS: TEST_CREDENTIAL_KEY,
    });
    try {
      const browser = new Browser(rotated.url);
      browser.cookie = user.browser.cookie;
      const moved = { ...user, browser };
      await takeUpstreamRequests(sandbox.url);
      expect((await browser.graphql(READ)).body).toEqual(read.body);
      expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
      expect((await browser.graphql(PDFS)).body).toEqual(pdfs.body);
      await takeUpstreamRequests(sandbox.url);
      expect(await pdfOperations(moved)).toEqual([['getF1099necStatements']]);
    } finally {
      await rotated.stop();
    }
  });
});
