/**
 * The answer an idempotent request got, sealed before it reaches the session store: its body holds
 * statement data (TINs, names), which Redis must never hold in clear. AES-256-GCM under the
 * `idempotency` key derived from CREDENTIAL_KEY, a fresh IV each time, and the record's identity,
 * key and fingerprint as associated data, so an answer copied into another record does not open.
 * Keys of CREDENTIAL_KEY_PREVIOUS still open what they sealed.
 *
 * Compressed before sealing (raw deflate, off the event loop): kept answers count against each
 * identity's IDEMPOTENCY_MAX_BYTES as stored, and GraphQL answers (repeated field names, error
 * lists of a bulk add) shrink several times. Compressing before encrypting lets the stored length
 * say something of the content; only a reader of the session store sees it, and it is an answer
 * the client was already sent. Records sealed before compression (`i1`) still open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import type { DerivedKeys } from '../derived-keys';
import type { RecordName } from './idempotency-store';

/** What is replayed: the status, the headers that describe the body, and the body's bytes as text. */
export interface StoredAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** `i2`: deflated, then sealed; `i1`: sealed as it was (records kept before compression). */
const VERSION = 'i2';
const VERSIONS = ['i2', 'i1'] as const;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** No kept answer opens past this (the upstream's answer limit): a bound on what inflating may cost. */
const MAX_CLEAR_BYTES = 64 * 1024 * 1024;

const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw);

const aad = (version: string, name: RecordName, fingerprint: string) => Buffer.from(JSON.stringify([version, name.identity, name.key, fingerprint]));

export async function sealAnswer(keys: Pick<DerivedKeys, 'forPurpose'>, name: RecordName, fingerprint: string, answer: StoredAnswer): Promise<string> {
  const key = keys.forPurpose('idempotency')[0] as Buffer;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(VERSION, name, fingerprint));
  const sealed = Buffer.concat([cipher.update(await deflate(Buffer.from(JSON.stringify(answer), 'utf8'))), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
}

/** The answer, or undefined when it does not open under any configured key for this record. */
export async function openAnswer(keys: Pick<DerivedKeys, 'forPurpose'>, name: RecordName, fingerprint: string, text: string): Promise<StoredAnswer | undefined> {
  const version = VERSIONS.find((candidate) => text.startsWith(`${candidate}.`));
  if (!version) return undefined;
  const bytes = Buffer.from(text.slice(version.length + 1), 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
  for (const key of keys.forPurpose('idempotency')) {
    let clear: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(version, name, fingerprint));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      clear = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      // Another key's, or tampered with: try the next key.
      continue;
    }
    // Authenticated: what follows is our own writing.
    const json = version === 'i1' ? clear : await inflate(clear, { maxOutputLength: MAX_CLEAR_BYTES });
    return JSON.parse(json.toString('utf8')) as StoredAnswer;
  }
  return undefined;
}
