/**
 * Encrypts upstream credentials at rest (AES-256-GCM). A stolen Redis dump or backup holds no
 * usable token without CREDENTIAL_KEY. The associated data binds each ciphertext to its record
 * (the session's key), its environment and its uid, so a ciphertext copied into another record,
 * or a record whose clear uid or environment was altered in the store, does not decrypt: a
 * sandbox credential is never sent to production, nor a credential used as another person.
 * The tag length is pinned (16 bytes) and a payload too short to hold IV and tag is refused,
 * so a truncated tag cannot weaken the check.
 * A session's absolute end is bound too, so editing it in the store does not extend the session.
 * The key is the `credentials` key derived from CREDENTIAL_KEY (derived-keys.ts), never the
 * master key itself.
 * Rotation: new text is sealed with the current key; text sealed with a previous key still opens
 * until those keys are dropped (CREDENTIAL_KEY_PREVIOUS).
 */
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { deriveKey } from '../derived-keys';
import type { Environment } from '../environment';
import type { UpstreamCredential } from '../upstream/credential';

/**
 * v3 binds record, environment, uid and absolute end under the derived key. Written by earlier
 * gateways, under CREDENTIAL_KEY itself, and still opened while such sessions live: v2 (record,
 * environment, uid) and v1 (record only, provided the uid sealed inside matches the record's).
 */
const VERSION = 'v3';
const V2 = 'v2';
const LEGACY_VERSION = 'v1';
const VERSIONS = new Set([VERSION, V2, LEGACY_VERSION]);
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What a sealed credential belongs to: the store record it sits in, and whose it is where. */
export interface CredentialBinding {
  /** The store key of the record (a session's key, a service account's credential key). */
  readonly record: string;
  readonly environment: Environment;
  /** The uid the record says the credential is for. */
  readonly uid: string;
  /** A session's absolute end (epoch ms), which the store keeps beside the credential. */
  readonly absoluteExpiresAt?: number;
}

/** Sealed by an earlier gateway (v1, v2): its binding lacks what v3 binds (a session's absolute end). */
export function isLegacySealed(sealed: string): boolean {
  return !sealed.startsWith(`${VERSION}.`);
}

export interface CredentialCipher {
  seal(credential: UpstreamCredential, binding: CredentialBinding): string;
  /** Throws when the text was not sealed with a configured key for this binding. */
  open(sealed: string, binding: CredentialBinding): UpstreamCredential;
}

function associatedData(version: string, binding: CredentialBinding): Buffer {
  if (version === LEGACY_VERSION) return Buffer.from(binding.record);
  if (version === V2) return Buffer.from(JSON.stringify([version, binding.record, binding.environment, binding.uid]));
  return Buffer.from(JSON.stringify([version, binding.record, binding.environment, binding.uid, binding.absoluteExpiresAt ?? null]));
}

function openWith(key: KeyObject, raw: Buffer, aad: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

export function createCredentialCipher(key: Buffer, previous: readonly Buffer[] = []): CredentialCipher {
  if (key.length !== 32 || previous.some((old) => old.length !== 32)) throw new Error('CREDENTIAL_KEY must be 32 bytes');
  // KeyObjects made once: a Buffer key is imported again by every cipher made with it (bench/README.md).
  const masters = [key, ...previous].map((master) => createSecretKey(master));
  const derived = [key, ...previous].map((master) => createSecretKey(deriveKey(master, 'credentials')));
  return {
    seal(credential, binding) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', derived[0] as KeyObject, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(associatedData(VERSION, binding));
      const body = Buffer.concat([cipher.update(JSON.stringify(credential), 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed, binding) {
      const [version = '', payload, extra] = sealed.split('.');
      if (!VERSIONS.has(version) || !payload || extra !== undefined) throw new Error('unknown credential format');
      const raw = Buffer.from(payload, 'base64url');
      // A sealed credential is never empty: a payload not longer than IV and a whole tag is refused.
      if (raw.length <= IV_BYTES + TAG_BYTES) throw new Error('credential too short');
      const aad = associatedData(version, binding);
      let text: string | undefined;
      for (const candidate of version === VERSION ? derived : masters) {
        try {
          text = openWith(candidate, raw, aad);
          break;
        } catch {
          // Not sealed with this key (or tampered with): try the next one.
        }
      }
      if (text === undefined) throw new Error('credential not sealed with any configured key');
      const value = JSON.parse(text) as UpstreamCredential;
      if (typeof value.accessToken !== 'string' || typeof value.client !== 'string' || typeof value.uid !== 'string') {
        throw new Error('malformed credential');
      }
      if (version === LEGACY_VERSION && value.uid !== binding.uid) throw new Error('credential of another uid');
      return value;
    },
  };
}
