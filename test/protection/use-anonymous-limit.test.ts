/**
 * The anonymous limit's counters in a real Redis (TEST_REDIS_URL), behind the client address and
 * the executed operation as in the gateway: a Redis reader cannot recover a client's address from
 * a key name. The counter is named by an HMAC under a key derived from CREDENTIAL_KEY, never the
 * address nor a bare SHA-256 of it (every IPv4 address is hashed in seconds, so that names the
 * client as plainly). Two gateways with different CREDENTIAL_KEYs name one address differently,
 * and the limit still counts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createDerivedKeys, type DerivedKeys } from '../../src/derived-keys';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { useIdentity } from '../../src/identity/use-identity';
import { addressGroup, useClientAddress } from '../../src/protection/client-address';
import { createRedisRateLimitStore } from '../../src/protection/rate-limiter';
import { useAnonymousLimit } from '../../src/protection/use-anonymous-limit';
import { useExecutedOperation } from '../../src/request/executed';
import { TEST_REDIS_URL } from '../support/gateway';
import { browserSessions, specUpstreams } from '../support/identities';
import { fromAddress, yogaWith } from '../support/yoga';

const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
afterAll(async () => {
  await redis.quit();
});

const LIMIT = 2;
const WINDOW = 60_000;

/** An address of this run alone: other files count on the same Redis, and keys outlive a run. */
const freshAddress = () => `10.${[...randomBytes(3)].join('.')}`;

/** One gateway's pipeline, with keys derived from its own CREDENTIAL_KEY. */
function gateway(keys: DerivedKeys) {
  const { log, metrics, state } = browserSessions();
  const server = yogaWith([
    useClientAddress({ ...state, trustProxy: 0 }),
    useExecutedOperation(state),
    useIdentity({ ...state, strategies: [], production: true, defaultUpstream: () => specUpstreams.sandbox }),
    useAnonymousLimit({ ...state, limit: { max: LIMIT, windowMs: WINDOW }, counters: createRedisRateLimitStore(redis), log, metrics, names: keys }),
    useErrorMapping({ ...state, log, metrics }),
  ]);
  return { from: (address: string) => server.graphql('{ __typename }', { serverContext: fromAddress(address) }) };
}

async function anonymousKeys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', 'sgw:rate:{anonymous:*', 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/** The address and the unkeyed hashes of it (and of its group) that a Redis reader could compute. */
function readableForms(address: string): string[] {
  return [address, addressGroup(address)].flatMap((text) => {
    const digest = createHash('sha256').update(text).digest();
    return [text, digest.toString('hex'), digest.toString('base64'), digest.toString('base64url'), digest.toString('base64url').slice(0, 22)];
  });
}

describe('the anonymous limit\'s counters in Redis', () => {
  it('name an address by an HMAC under CREDENTIAL_KEY: neither the address nor its sha256 is in any key (regression)', async () => {
    const keys = createDerivedKeys(randomBytes(32));
    const address = freshAddress();
    expect((await gateway(keys).from(address)).codes).toEqual([]);
    const counters = await anonymousKeys();
    const name = `sgw:rate:{anonymous:${keys.name('anonymous', addressGroup(address))}}:`;
    expect(counters.filter((key) => key.startsWith(name))).toHaveLength(1);
    for (const form of readableForms(address)) expect(counters.filter((key) => key.includes(form))).toEqual([]);
  });

  it('are named differently by two gateways with different CREDENTIAL_KEYs', async () => {
    const [first, second] = [createDerivedKeys(randomBytes(32)), createDerivedKeys(randomBytes(32))];
    const address = freshAddress();
    expect((await gateway(first).from(address)).codes).toEqual([]);
    expect((await gateway(second).from(address)).codes).toEqual([]);
    const names = [first, second].map((keys) => keys.name('anonymous', addressGroup(address)));
    expect(names[0]).not.toBe(names[1]);
    const counters = await anonymousKeys();
    for (const name of names) expect(counters.filter((key) => key.startsWith(`sgw:rate:{anonymous:${name}}:`))).toHaveLength(1);
  });

  it('still limit the address: its operations up to the limit, then RATE_LIMITED, while another address goes on', async () => {
    const { from } = gateway(createDerivedKeys(randomBytes(32)));
    const address = freshAddress();
    for (let i = 0; i < LIMIT; i++) expect((await from(address)).codes).toEqual([]);
    const refused = await from(address);
    expect([refused.status, refused.codes]).toEqual([429, ['RATE_LIMITED']]);
    expect((await from(freshAddress())).codes).toEqual([]);
  });
});
