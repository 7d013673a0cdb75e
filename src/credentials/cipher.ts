/**
 * Encrypts upstream credentials at rest (AES-256-GCM). A stolen Redis dump or backup holds no
 * usable token without CREDENTIAL_KEY. The associated data binds each ciphertext to its record
 * (the session's key), so a ciphertext copied into another record does not decrypt.
 * Rotation: new text is sealed with the current key; text sealed with a previous key still opens
 * until those keys are dropped (CREDENTIAL_KEY_PREVIOUS).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { UpstreamCredential } from './types';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface CredentialCipher {
  seal(credential: UpstreamCredential, boundTo: string): string;
  /** Throws when the text was not sealed with this key for this record. */
  open(sealed: string, boundTo: string): UpstreamCredential;
}

function openWith(key: Buffer, raw: Buffer, boundTo: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(boundTo));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

export function createCredentialCipher(key: Buffer, previous: readonly Buffer[] = []): CredentialCipher {
  if (key.length !== 32 || previous.some((old) => old.length !== 32)) throw new Error('CREDENTIAL_KEY must be 32 bytes');
  const keys = [key, ...previous];
  return {
    seal(credential, boundTo) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(boundTo));
      const body = Buffer.concat([cipher.update(JSON.stringify(credential), 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed, boundTo) {
      const [version, payload] = sealed.split('.');
      if (version !== VERSION || !payload) throw new Error('unknown credential format');
      const raw = Buffer.from(payload, 'base64url');
      let text: string | undefined;
      for (const candidate of keys) {
        try {
          text = openWith(candidate, raw, boundTo);
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
      return value;
    },
  };
}
