/**
 * The answer an idempotent request got, sealed before it reaches the session store: its body holds
 * statement data (TINs, names), which Redis must never hold in clear. AES-256-GCM under the
 * `idempotency` key derived from CREDENTIAL_KEY, a fresh IV each time, and the record's identity,
 * key and fingerprint as associated data, so an answer copied into another record does not open.
 * Keys of CREDENTIAL_KEY_PREVIOUS still open what they sealed.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DerivedKeys } from '../derived-keys';
import type { RecordName } from './idempotency-store';

/** What is replayed: the status, the headers that describe the body, and the body's bytes as text. */
export interface StoredAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const VERSION = 'i1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const aad = (name: RecordName, fingerprint: string) => Buffer.from(JSON.stringify([VERSION, name.identity, name.key, fingerprint]));

export function sealAnswer(keys: Pick<DerivedKeys, 'forPurpose'>, name: RecordName, fingerprint: string, answer: StoredAnswer): string {
  const key = keys.forPurpose('idempotency')[0] as Buffer;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(name, fingerprint));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(answer), 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
}

/** The answer, or undefined when it does not open under any configured key for this record. */
export function openAnswer(keys: Pick<DerivedKeys, 'forPurpose'>, name: RecordName, fingerprint: string, text: string): StoredAnswer | undefined {
  if (!text.startsWith(`${VERSION}.`)) return undefined;
  const bytes = Buffer.from(text.slice(VERSION.length + 1), 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  for (const key of keys.forPurpose('idempotency')) {
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(name, fingerprint));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const clear = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      return JSON.parse(clear) as StoredAnswer;
    } catch {
      // Another key's, or tampered with: try the next key.
    }
  }
  return undefined;
}
