/**
 * The drop-in front's record of a verified credential, forged by someone who can write to Redis
 * but does not hold CREDENTIAL_KEY: planted as earlier gateways wrote it (an unkeyed sha256 of the
 * token under an unkeyed name), or under the right name without a valid MAC. Neither lets
 * `/v2/graphql` answer the forged credential from the victim's cache, nor echo it back: the
 * request goes to the upstream, which refuses it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createDerivedKeys } from '../../src/derived-keys';
import { upstreamTarget } from '../../src/upstream/target';
import { takeUpstreamRequests } from '../support/cache';
import { control, seed, signInRaw, type Credential } from '../support/emulator';
import { TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGatewayOnEmulators } from '../support/gateway';

const PASSWORD = 'a-long-enough-password-123';
const READ = '{ getStatements { statements { nodes { otxId uploaderId } } } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.disconnect());

const front = (gatewayUrl: string, credential: Credential) =>
  fetch(`${gatewayUrl}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: JSON.stringify({ query: READ }) });

describe("the drop-in front's verified-credential record", () => {
  const { sandbox, gateway } = useGatewayOnEmulators();

  it('planted in Redis without CREDENTIAL_KEY, does not make /v2/graphql answer from the cache nor echo the forged credential (regression)', async () => {
    const victim = `front-forged-${randomUUID()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: victim, password: PASSWORD })).status).toBe(201);
    await seed(sandbox.url, victim, 'F1099nec', 2);
    const signedIn = await signInRaw(sandbox.url, victim, PASSWORD);
    const genuine = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: victim };
    // The victim's read is cached, and its credential verified.
    for (let round = 0; round < 2; round++) expect((await front(gateway.current.url, genuine)).status).toBe(200);

    const forged = { 'access-token': `forged-${randomUUID()}`, client: `forged-${randomUUID()}`, uid: victim };
    const namespace = upstreamTarget('sandbox', sandbox.url).cacheNamespace;
    const expiry = String(Math.floor(Date.now() / 1000) + 3_600);
    // As the review planted it: earlier gateways' name and value.
    const plants = [[`sgw:front:verified:${sha256([namespace, victim, forged.client].join('\0'))}`, `${sha256(forged['access-token'])} ${expiry}`]];
    // Under the name this gateway looks up (as if the attacker had learned it), without a MAC of this key.
    const name = createDerivedKeys(Buffer.from(TEST_CREDENTIAL_KEY, 'base64')).name('front verified', namespace, victim, forged.client);
    plants.push([`sgw:front:verified:${name}`, `${Date.now() + 60_000} ${expiry} ${sha256(forged['access-token'])}`]);

    for (const [key = '', value = ''] of plants) {
      await redis.set(key, value, 'PX', 60_000);
      await takeUpstreamRequests(sandbox.url);
      const answer = await front(gateway.current.url, forged);
      const body = await answer.text();
      expect(answer.status).toBe(401);
      expect(body).not.toContain('otxId');
      expect(answer.headers.get('access-token')).not.toBe(forged['access-token']);
      // Passed through: the upstream, not the cache, decided.
      expect((await takeUpstreamRequests(sandbox.url)).length).toBe(1);
      await redis.del(key);
    }
  });
});
