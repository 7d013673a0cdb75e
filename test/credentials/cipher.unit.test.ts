/**
 * The credential cipher (AES-256-GCM): a sealed credential opens only for the record, environment
 * and uid it was sealed for, with the full 16-byte tag, under the current or a previous key.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCredentialCipher, type CredentialBinding } from '../../src/credentials/cipher';
import type { UpstreamCredential } from '../../src/upstream/credential';

const CREDENTIAL: UpstreamCredential = { accessToken: 'token-of-alice', client: 'client-1', uid: 'alice@example.com', expiry: 2_000_000_000 };
const ALICE: CredentialBinding = { record: 'sgw:session:abc', environment: 'sandbox', uid: 'alice@example.com' };

/** A credential as earlier gateways sealed it, under CREDENTIAL_KEY itself. */
function sealedUnder(key: Buffer, version: string, credential: UpstreamCredential, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(JSON.stringify(credential), 'utf8'), cipher.final()]);
  return `${version}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** A credential as gateways before v2 sealed it: the record alone as associated data. */
const sealedV1 = (key: Buffer, credential: UpstreamCredential, record: string) => sealedUnder(key, 'v1', credential, record);

describe('the credential cipher', () => {
  it('opens a credential for the record, environment and uid it was sealed for', () => {
    const cipher = createCredentialCipher(randomBytes(32));
    const sealed = cipher.seal(CREDENTIAL, ALICE);
    expect(sealed).not.toContain('token-of-alice');
    expect(cipher.open(sealed, ALICE)).toEqual(CREDENTIAL);
  });

  it('does not open a credential sealed for uid A as uid B', () => {
    const cipher = createCredentialCipher(randomBytes(32));
    const sealed = cipher.seal(CREDENTIAL, ALICE);
    expect(() => cipher.open(sealed, { ...ALICE, uid: 'bob@example.com' })).toThrow();
  });

  it('does not open a sandbox credential as production, nor in another record', () => {
    const cipher = createCredentialCipher(randomBytes(32));
    const sealed = cipher.seal(CREDENTIAL, ALICE);
    expect(() => cipher.open(sealed, { ...ALICE, environment: 'production' })).toThrow();
    expect(() => cipher.open(sealed, { ...ALICE, record: 'sgw:session:other' })).toThrow();
  });

  it('refuses a truncated tag and a payload no longer than IV and tag', () => {
    const cipher = createCredentialCipher(randomBytes(32));
    const sealed = cipher.seal(CREDENTIAL, ALICE);
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    // The tag cut to 12 bytes (the body follows it at once): the pinned length never accepts it.
    const shortTag = Buffer.concat([raw.subarray(0, 24), raw.subarray(28)]);
    expect(() => cipher.open(`v2.${shortTag.toString('base64url')}`, ALICE)).toThrow();
    for (const length of [0, 12, 20, 28]) expect(() => cipher.open(`v2.${raw.subarray(0, length).toString('base64url')}`, ALICE)).toThrow();
    expect(() => cipher.open(`v2.${raw.toString('base64url')}.x`, ALICE)).toThrow();
  });

  it('refuses a credential altered in any byte', () => {
    const cipher = createCredentialCipher(randomBytes(32));
    const raw = Buffer.from(cipher.seal(CREDENTIAL, ALICE).slice(3), 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw);
      altered[i] = (altered[i] ?? 0) ^ 0x80;
      expect(() => cipher.open(`v3.${altered.toString('base64url')}`, ALICE)).toThrow();
    }
  });

  it('opens a credential of a previous key after rotation', () => {
    const old = randomBytes(32);
    const sealed = createCredentialCipher(old).seal(CREDENTIAL, ALICE);
    expect(createCredentialCipher(randomBytes(32), [old]).open(sealed, ALICE)).toEqual(CREDENTIAL);
    expect(() => createCredentialCipher(randomBytes(32)).open(sealed, ALICE)).toThrow();
  });

  it('still opens a v1 credential of an earlier gateway for its own uid, and not for another', () => {
    const key = randomBytes(32);
    const cipher = createCredentialCipher(key);
    const sealed = sealedV1(key, CREDENTIAL, ALICE.record);
    expect(cipher.open(sealed, ALICE)).toEqual(CREDENTIAL);
    expect(() => cipher.open(sealed, { ...ALICE, uid: 'bob@example.com' })).toThrow();
    expect(() => cipher.open(sealed, { ...ALICE, record: 'sgw:session:other' })).toThrow();
    expect(cipher.seal(CREDENTIAL, ALICE).startsWith('v3.')).toBe(true);
  });

  it('still opens a v2 credential sealed under CREDENTIAL_KEY itself by an earlier gateway, for its own binding only', () => {
    const key = randomBytes(32);
    const sealed = sealedUnder(key, 'v2', CREDENTIAL, JSON.stringify(['v2', ALICE.record, ALICE.environment, ALICE.uid]));
    expect(createCredentialCipher(key).open(sealed, ALICE)).toEqual(CREDENTIAL);
    expect(createCredentialCipher(randomBytes(32), [key]).open(sealed, ALICE)).toEqual(CREDENTIAL);
    expect(() => createCredentialCipher(key).open(sealed, { ...ALICE, environment: 'production' })).toThrow();
  });

  it('seals under a key derived from CREDENTIAL_KEY, never under CREDENTIAL_KEY itself', () => {
    const key = randomBytes(32);
    const sealed = createCredentialCipher(key).seal(CREDENTIAL, ALICE);
    // The same bytes presented as a v2 credential (opened with the master key) do not open.
    expect(() => createCredentialCipher(key).open(`v2.${sealed.slice(3)}`, ALICE)).toThrow();
  });

  it('binds a session\'s absolute end: a credential does not open for an edited one', () => {
    const cipher = createCredentialCipher(randomBytes(32));
    const session = { ...ALICE, absoluteExpiresAt: 1_900_000_000_000 };
    const sealed = cipher.seal(CREDENTIAL, session);
    expect(cipher.open(sealed, session)).toEqual(CREDENTIAL);
    expect(() => cipher.open(sealed, { ...session, absoluteExpiresAt: session.absoluteExpiresAt + 3_600_000 })).toThrow();
    expect(() => cipher.open(sealed, ALICE)).toThrow();
  });
});
