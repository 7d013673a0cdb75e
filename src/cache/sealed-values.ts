/**
 * Statement reads and PDFs are sealed before they reach the cache store: a Redis dump, backup or
 * replica then holds no TIN, name or PDF. AES-256-GCM under a key per group (one purpose of one
 * identity scope) derived with HKDF-SHA256 from CREDENTIAL_KEY, a fresh 12-byte IV per entry, and
 * the entry's group and id as associated data: an entry copied under another key, or into another
 * identity's group, does not open. Keys of CREDENTIAL_KEY_PREVIOUS still open what they sealed.
 *
 * Member ids and aliases (otxIds, uploaderIds, which a client may have written names into) are
 * stored under a keyed hash of themselves (HMAC-SHA256 with another key derived the same way), so
 * key names and indexes show no statement field either. A group's hash tag (which names the
 * identity) is replaced by an HMAC of it under the derived key-names key, keeping the upstream's
 * namespace readable: Redis holds no e-mail, nor a bare hash of one that a list of e-mails could
 * be tested against. After a rotation, a member missing from the current key's group is looked
 * for in each previous key's group, and drops reach every key's group.
 * An entry that does not open (another key, tampered with, an older clear-text entry) is a miss,
 * never an error: the read goes to the upstream and the new answer replaces the entry.
 * The definitions payload is public and stays in clear (it does not go through groups).
 */
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DerivedKeys } from '../derived-keys';
import { UNKNOWN_GENERATION, type AbsenceReason, type CacheStore, type GroupEntry, type GroupSelection } from './cache-store';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/**
 * `s1t`: the value's UTF-8 text was sealed. `s1b`: the value is canonical base64 (a PDF) and its
 * bytes were sealed, so the stored text is no larger than the clear one was.
 */
const TEXT = 's1t';
const BYTES = 's1b';
const HKDF_SALT = Buffer.from('statement-gateway cache');
/** `<prefix>{<hash tag>}<suffix>`: the tag names the identity, and keeps a group in one Cluster slot. */
const TAGGED = /^([^{]*)\{([^}]*)\}(.*)$/s;

export interface SealedValues {
  seal(group: string, id: string, value: string): string;
  /** The clear value, or null when it does not open under any configured key. */
  open(group: string, id: string, sealed: string): string | null;
  /** The stored name of a member id or alias: under the current key first, then each previous key. */
  names(group: string, id: string): string[];
  /** The stored name of a group (its hash tag keyed), in the same order. */
  groups(group: string): string[];
}

export interface SealedValuesOptions {
  /** Derived from CREDENTIAL_KEY (or the process's random key) and CREDENTIAL_KEY_PREVIOUS, whose entries still open. */
  readonly keys: Pick<DerivedKeys, 'forPurpose' | 'names'>;
  /** Derived keys remembered (per group): HKDF runs once per identity, not once per read. */
  readonly maxGroups?: number;
}

function isCanonicalBase64(value: string): boolean {
  return value.length > 0 && value.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, 'base64').toString('base64') === value;
}

function aad(format: string, group: string, id: string): Buffer {
  return Buffer.from(`${format}\0${group}\0${id}`);
}

export function createSealedValues({ keys: purposeKeys, maxGroups = 10_000 }: SealedValuesOptions): SealedValues {
  const masters = purposeKeys.forPurpose('cache');
  const derived = new LRUCache<string, { sealing: KeyObject[]; naming: KeyObject[]; groups: string[] }>({ max: maxGroups });
  // The info names the purpose and the group (which names the identity scope and the cache). Kept
  // as KeyObjects: a Buffer key is imported again by every cipher or HMAC made with it.
  const derive = (group: string, purpose: string) => masters.map((master) => createSecretKey(Buffer.from(hkdfSync('sha256', master, HKDF_SALT, `cache ${purpose} of ${group}`, 32))));
  const derivedOf = (group: string) => {
    let keys = derived.get(group);
    if (!keys) derived.set(group, (keys = { sealing: derive(group, 'entries'), naming: derive(group, 'names'), groups: keyedGroups(group) }));
    return keys;
  };
  const keysOf = (group: string): KeyObject[] => derivedOf(group).sealing;
  const keyedGroups = (group: string): string[] => {
    const [, prefix = '', tag = group, suffix = ''] = TAGGED.exec(group) ?? [];
    const colon = tag.indexOf(':');
    const namespace = colon > 0 ? tag.slice(0, colon + 1) : '';
    return purposeKeys.names('cache scope', tag).map((name) => `${prefix}{${namespace}${name}}${suffix}`);
  };

  return {
    seal(group, id, value) {
      const format = isCanonicalBase64(value) ? BYTES : TEXT;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keysOf(group)[0] as KeyObject, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(format, group, id));
      const body = Buffer.concat([cipher.update(format === BYTES ? Buffer.from(value, 'base64') : Buffer.from(value, 'utf8')), cipher.final()]);
      return `${format}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    },
    open(group, id, sealed) {
      const format = sealed.slice(0, 3);
      if ((format !== TEXT && format !== BYTES) || sealed[3] !== '.') return null;
      const raw = Buffer.from(sealed.slice(4), 'base64');
      if (raw.length < IV_BYTES + TAG_BYTES) return null;
      for (const candidate of keysOf(group)) {
        try {
          const decipher = createDecipheriv('aes-256-gcm', candidate, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
          decipher.setAAD(aad(format, group, id));
          decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
          const clear = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
          return format === BYTES ? clear.toString('base64') : clear.toString('utf8');
        } catch {
          // Not sealed under this key, or altered: try the next key.
        }
      }
      return null;
    },
    names(group, id) {
      return derivedOf(group).naming.map((key) => createHmac('sha256', key).update(id).digest('base64url').slice(0, 22));
    },
    groups(group) {
      return derivedOf(group).groups;
    },
  };
}

/**
 * The store with every group member sealed on the way in and opened on the way out (a member
 * that does not open reads as absent, and is reported to `onUnopened`), under its keyed name in
 * its keyed group. After a key rotation a member missing from the current key's group is looked
 * up in each previous key's group, and drops reach every key's group.
 * Keys and single values (definitions, locks) pass as they are.
 */
export function sealGroupMembers(store: CacheStore, values: SealedValues, onUnopened: () => void = () => undefined): CacheStore {
  const nameIn = (group: string, k: number) => (id: string) => values.names(group, id)[k] ?? id;
  const keyed = (group: string, k: number, selection: GroupSelection): GroupSelection =>
    selection === 'all' ? selection : { ids: selection.ids.map(nameIn(group, k)), aliases: selection.aliases.map(nameIn(group, k)) };
  return {
    ...store,
    async getMembers(group, ids) {
      const stored = values.groups(group);
      const opened: (string | null)[] = ids.map(() => null);
      let generation: string | undefined;
      // Why each member is absent, as the current key's group said. A member any key's group held
      // has none: opened, it is not absent; not opened, its reason is asked apart (`absences`).
      let absent: (AbsenceReason | null)[] | undefined;
      for (let k = 0; k < stored.length; k++) {
        // The current key's group always (its generation guards the write after); older ones for what is missing.
        const wanted = ids.flatMap((id, i) => (opened[i] === null ? [i] : []));
        if (k > 0 && wanted.length === 0) break;
        const read = await store.getMembers(stored[k] as string, wanted.map((i) => nameIn(group, k)(ids[i] as string)));
        generation ??= read.generation;
        if (k === 0 && read.absent) absent = [...read.absent];
        wanted.forEach((i, n) => {
          const sealed = read.values[n];
          if (sealed == null) return;
          if (absent) absent[i] = null;
          opened[i] = values.open(group, ids[i] as string, sealed);
          // Replicas with different keys miss on each other's entries: visible, not silent.
          if (opened[i] === null) onUnopened();
        });
      }
      return { values: opened, generation: generation ?? UNKNOWN_GENERATION, ...(absent ? { absent } : {}) };
    },
    putMembers(group, entries, ttlMs, generation, maxMembers) {
      // Nothing would be written: skip the sealing too.
      if (generation === UNKNOWN_GENERATION || entries.length === 0) return Promise.resolve();
      const name = nameIn(group, 0);
      const sealed = entries.map((entry): GroupEntry => ({
        id: name(entry.id),
        value: values.seal(group, entry.id, entry.value),
        ...(entry.aliases ? { aliases: entry.aliases.map(name) } : {}),
      }));
      return store.putMembers(values.groups(group)[0] as string, sealed, ttlMs, generation, maxMembers);
    },
    async dropMembers(group, selection, reason) {
      const dropped = await Promise.all(values.groups(group).map((stored, k) => store.dropMembers(stored, keyed(group, k, selection), reason)));
      return dropped.reduce((sum, n) => sum + n, 0);
    },
    async countMembers(group, selection) {
      const counts = await Promise.all(values.groups(group).map((stored, k) => store.countMembers(stored, keyed(group, k, selection))));
      return counts.reduce((sum, n) => sum + n, 0);
    },
    // The current key's group: the one lookups read first and writes go to.
    absences(group, ids) {
      return store.absences(values.groups(group)[0] as string, ids.map(nameIn(group, 0)));
    },
  };
}
