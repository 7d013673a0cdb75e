/**
 * Key names in Redis hold no e-mail, nor an unkeyed hash of one: someone who can list the keys
 * (a replica, a backup, a monitoring tool) must not be able to test a list of e-mails against
 * them. After a login, a read, a front sign-in, a front read and a failed login, every key of the
 * test Redis is scanned for the e-mail and for the unkeyed SHA-256 forms earlier gateways used.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { addressGroup } from '../../src/protection/client-address';
import { signedInUser } from '../support/cache';
import { signInRaw } from '../support/emulator';
import { Browser, TEST_REDIS_URL, useGatewayOnEmulators } from '../support/gateway';

const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.disconnect());

const READ = '{ getStatements { statements { nodes { otxId } } } }';

/** This test's client address, as the limits group it: a Redis reader can guess it too. */
const GROUPS = ['127.0.0.1', '::1', '::ffff:127.0.0.1'].map(addressGroup);

/**
 * The e-mail and the unkeyed hashes of it a Redis reader could compute (alone, with the
 * environment, with the address): hex, base64, base64url, and the 22-character prefix.
 */
function forms(email: string): string[] {
  const found: string[] = [email, email.toLowerCase()];
  const texts = [[email], ['sandbox', email], ...GROUPS.flatMap((group) => [['sandbox', group, email], ['sandbox', email, group]])];
  for (const text of texts.map((parts) => parts.join('\0'))) {
    const digest = createHash('sha256').update(text).digest();
    found.push(digest.toString('hex'), digest.toString('base64'), digest.toString('base64url'), digest.toString('base64url').slice(0, 22));
  }
  return found;
}

async function allKeys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

describe('Redis key names', () => {
  const { sandbox, gateway } = useGatewayOnEmulators();

  it('hold no e-mail nor its unkeyed sha256 after a login, a read, a front sign-in and read, and a failed login (regression)', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    expect((await user.browser.graphql(READ)).codes).toEqual([]);
    const signIn = await signInRaw(gateway.current.url, user.email, 'a-long-enough-password-123');
    expect(signIn.status).toBe(200);
    const credential = { 'access-token': signIn.headers.get('access-token') ?? '', client: signIn.headers.get('client') ?? '', uid: user.email };
    const read = await fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: JSON.stringify({ query: READ }) });
    expect(read.status).toBe(200);
    expect((await new Browser(gateway.current.url).login(user.email, 'not-the-password-at-all')).codes).not.toEqual([]);

    const keys = await allKeys();
    expect(keys.some((key) => key.startsWith('sgw:rate:{login-'))).toBe(true);
    expect(keys.some((key) => key.startsWith('sgw:cache:{'))).toBe(true);
    expect(keys.some((key) => key.startsWith('sgw:front:verified:'))).toBe(true);
    for (const form of forms(user.email)) expect(keys.filter((key) => key.includes(form))).toEqual([]);
  });
});
