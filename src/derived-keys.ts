/**
 * One key per purpose, derived from CREDENTIAL_KEY with HKDF-SHA256 (one `info` per purpose), so
 * no two uses share a key: what seals credentials never MACs a cache entry or names a Redis key,
 * and a weakness or a leak in one use says nothing about the others. CREDENTIAL_KEY itself is only
 * HKDF input (earlier versions sealed credentials with it directly; cipher.ts still opens those).
 *
 * Every list here is the current key first, then one per CREDENTIAL_KEY_PREVIOUS: seal, MAC and
 * name with the first, open and verify with any, so what the previous key wrote is accepted for
 * one rotation. Names under a previous key are given too, so a record can be found or forgotten
 * under each.
 *
 * MACs and names cover their parts JSON-encoded, so no choice of parts (an e-mail with a NUL or a
 * quote) can collide with another. This file imports nothing of ours: every layer may use it.
 */
import { createHmac, createSecretKey, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';

/** What a derived key is for; each is one HKDF `info`. */
export type KeyPurpose = 'credentials' | 'cache' | 'definitions' | 'front' | 'sessions' | 'names' | 'idempotency' | 'idempotency-fingerprint' | 'upstream-schema';

const SALT = Buffer.from('statement-gateway derived keys');
const KEY_BYTES = 32;
/** 132 bits of HMAC in a key name: collisions are out of reach, and names stay short. */
const NAME_CHARS = 22;

export interface DerivedKeys {
  /** The purpose's keys: under CREDENTIAL_KEY first, then under each previous key. */
  forPurpose(purpose: KeyPurpose): readonly Buffer[];
  /** A Redis key-name fragment for `parts` (an e-mail, a uid, a token...): keyed, never a bare hash. */
  name(...parts: readonly string[]): string;
  /** The same name under every configured key, current first (lookups and deletes after a rotation). */
  names(...parts: readonly string[]): string[];
  /** A MAC of `parts` under the purpose's current key (base64url). */
  mac(purpose: KeyPurpose, ...parts: readonly string[]): string;
  /** Whether `tag` is the MAC of `parts` under any of the purpose's keys (compared in constant time). */
  verify(purpose: KeyPurpose, tag: string, ...parts: readonly string[]): boolean;
}

export function deriveKey(master: Buffer, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', master, SALT, `statement-gateway ${purpose}`, KEY_BYTES));
}

// A KeyObject, made once per key: given a Buffer, createHmac imports the key again on every call,
// which costs several times the MAC itself (bench/README.md).
function hmac(key: KeyObject, parts: readonly string[]): Buffer {
  return createHmac('sha256', key).update(JSON.stringify(parts)).digest();
}

/** `master` is CREDENTIAL_KEY (or the process's random key without one), `previous` CREDENTIAL_KEY_PREVIOUS. */
export function createDerivedKeys(master: Buffer, previous: readonly Buffer[] = []): DerivedKeys {
  if (master.length !== KEY_BYTES || previous.some((old) => old.length !== KEY_BYTES)) throw new Error('CREDENTIAL_KEY must be 32 bytes');
  const masters = [master, ...previous];
  const derived = new Map<KeyPurpose, readonly Buffer[]>();
  const forPurpose = (purpose: KeyPurpose): readonly Buffer[] => {
    let list = derived.get(purpose);
    if (!list) derived.set(purpose, (list = masters.map((key) => deriveKey(key, purpose))));
    return list;
  };
  const macKeys = new Map<KeyPurpose, readonly KeyObject[]>();
  const macKeysFor = (purpose: KeyPurpose): readonly KeyObject[] => {
    let list = macKeys.get(purpose);
    if (!list) macKeys.set(purpose, (list = forPurpose(purpose).map((key) => createSecretKey(key))));
    return list;
  };
  const nameWith = (key: KeyObject, parts: readonly string[]) => hmac(key, parts).toString('base64url').slice(0, NAME_CHARS);
  return {
    forPurpose,
    name: (...parts) => nameWith(macKeysFor('names')[0] as KeyObject, parts),
    names: (...parts) => macKeysFor('names').map((key) => nameWith(key, parts)),
    mac: (purpose, ...parts) => hmac(macKeysFor(purpose)[0] as KeyObject, parts).toString('base64url'),
    verify(purpose, tag, ...parts) {
      const given = Buffer.from(tag, 'base64url');
      return macKeysFor(purpose).some((key) => {
        const expected = hmac(key, parts);
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
    },
  };
}
