/**
 * Cache entries sealed at rest (AES-256-GCM, a key per group derived from CREDENTIAL_KEY): what
 * the store holds reveals nothing, and anything that does not open is a miss, never an error.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import { createSealedValues, sealGroupMembers } from '../../src/cache/sealed-values';
import { createDerivedKeys } from '../../src/derived-keys';

const KEY_A = randomBytes(32);
const KEY_B = randomBytes(32);
const GROUP = 'sgw:cache:{sandbox.x:alice}:pdf';
const OTHER_GROUP = 'sgw:cache:{sandbox.x:bob}:pdf';
const PDF = Buffer.from('%PDF-1.7 recipient 200213492 Leif Babson').toString('base64');

describe('sealed cache values', () => {
  it('opens what it sealed, text and base64 alike, and the sealed text shows neither', () => {
    const values = createSealedValues({ keys: createDerivedKeys(KEY_A) });
    const text = JSON.stringify({ recipientTin: '200213492', recipientFirstName: 'Leif' });
    const sealedText = values.seal(GROUP, 'read-1', text);
    const sealedPdf = values.seal(GROUP, 'otx-1', PDF);
    expect(values.open(GROUP, 'read-1', sealedText)).toBe(text);
    expect(values.open(GROUP, 'otx-1', sealedPdf)).toBe(PDF);
    for (const sealed of [sealedText, sealedPdf]) {
      expect(sealed).not.toContain('200213492');
      expect(sealed).not.toContain('Leif');
      expect(sealed).not.toContain('JVBERi0');
    }
    // The PDF's bytes are sealed, not its base64: no larger than the clear text plus IV and tag.
    expect(sealedPdf.length).toBeLessThanOrEqual(PDF.length + 48);
  });

  it('seals the same value differently each time (a fresh IV per entry)', () => {
    const values = createSealedValues({ keys: createDerivedKeys(KEY_A) });
    expect(values.seal(GROUP, 'a', 'same')).not.toBe(values.seal(GROUP, 'a', 'same'));
  });

  it('does not open an entry copied to another identity\'s group or to another id', () => {
    const values = createSealedValues({ keys: createDerivedKeys(KEY_A) });
    const sealed = values.seal(GROUP, 'otx-1', PDF);
    expect(values.open(OTHER_GROUP, 'otx-1', sealed)).toBeNull();
    expect(values.open(GROUP, 'otx-2', sealed)).toBeNull();
  });

  it('does not open an entry altered in any byte, truncated, of another format, or in clear', () => {
    const values = createSealedValues({ keys: createDerivedKeys(KEY_A) });
    const sealed = values.seal(GROUP, 'r', 'some statement');
    const raw = Buffer.from(sealed.slice(4), 'base64');
    for (let i = 0; i < raw.length; i++) {
      const altered = Buffer.from(raw);
      altered[i] = (altered[i] ?? 0) ^ 1;
      expect(values.open(GROUP, 'r', `${sealed.slice(0, 4)}${altered.toString('base64')}`)).toBeNull();
    }
    expect(values.open(GROUP, 'r', `${sealed.slice(0, 4)}${raw.subarray(0, raw.length - 1).toString('base64')}`)).toBeNull();
    expect(values.open(GROUP, 'r', `${sealed.slice(0, 4)}${raw.subarray(0, 27).toString('base64')}`)).toBeNull();
    expect(values.open(GROUP, 'r', `s1b${sealed.slice(3)}`)).toBeNull();
    expect(values.open(GROUP, 'r', 'some statement')).toBeNull();
  });

  it('opens entries of a previous key after rotation, and not those of an unknown key', () => {
    const before = createSealedValues({ keys: createDerivedKeys(KEY_A) });
    const sealed = before.seal(GROUP, 'r', 'kept across rotation');
    expect(createSealedValues({ keys: createDerivedKeys(KEY_B, [KEY_A]) }).open(GROUP, 'r', sealed)).toBe('kept across rotation');
    expect(createSealedValues({ keys: createDerivedKeys(KEY_B) }).open(GROUP, 'r', sealed)).toBeNull();
  });

  it('stores members and aliases under keyed names, and drops by id and alias through them, after a rotation too', async () => {
    const store = createMemoryCacheStore();
    const before = sealGroupMembers(store, createSealedValues({ keys: createDerivedKeys(KEY_A) }));
    await before.putMembers(GROUP, [{ id: 'otx-1', value: PDF, aliases: ['smith-john-w2'] }, { id: 'otx-2', value: PDF }], 60_000, (await before.getMembers(GROUP, [])).generation, 10);
    const values = createSealedValues({ keys: createDerivedKeys(KEY_A) });
    const [stored = ''] = values.groups(GROUP);
    expect((await store.getMembers(stored, ['otx-1'])).values).toEqual([null]);
    const names = values.names(GROUP, 'otx-1');
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect((await store.getMembers(stored, names)).values[0]).toEqual(expect.any(String));
    const after = sealGroupMembers(store, createSealedValues({ keys: createDerivedKeys(KEY_B, [KEY_A]) }));
    expect((await after.getMembers(GROUP, ['otx-1', 'otx-2'])).values).toEqual([PDF, PDF]);
    await after.dropMembers(GROUP, { ids: ['otx-2'], aliases: ['smith-john-w2'] });
    expect((await after.getMembers(GROUP, ['otx-1', 'otx-2'])).values).toEqual([null, null]);
  });

  it('names a group by an HMAC of its hash tag, keeping the namespace and the tag\'s braces', () => {
    const [stored = ''] = createSealedValues({ keys: createDerivedKeys(KEY_A) }).groups(GROUP);
    expect(stored).toMatch(/^sgw:cache:\{sandbox\.x:[A-Za-z0-9_-]{22}\}:pdf$/);
    expect(stored).not.toContain('alice');
    expect(createSealedValues({ keys: createDerivedKeys(KEY_B) }).groups(GROUP)[0]).not.toBe(stored);
    expect(createSealedValues({ keys: createDerivedKeys(KEY_B, [KEY_A]) }).groups(GROUP)[1]).toBe(stored);
  });

  it('reads a member that does not open as absent through the store', async () => {
    const store = createMemoryCacheStore();
    const sealedA = sealGroupMembers(store, createSealedValues({ keys: createDerivedKeys(KEY_A) }));
    const sealedB = sealGroupMembers(store, createSealedValues({ keys: createDerivedKeys(KEY_B) }));
    const { generation } = await sealedA.getMembers(GROUP, []);
    await sealedA.putMembers(GROUP, [{ id: 'otx-1', value: PDF }], 60_000, generation, 10);
    const values = createSealedValues({ keys: createDerivedKeys(KEY_A) });
    const [name = ''] = values.names(GROUP, 'otx-1');
    expect((await store.getMembers(values.groups(GROUP)[0] ?? '', [name])).values[0]).not.toContain('JVBERi0');
    expect((await sealedA.getMembers(GROUP, ['otx-1', 'otx-2'])).values).toEqual([PDF, null]);
    expect((await sealedB.getMembers(GROUP, ['otx-1'])).values).toEqual([null]);
  });
});
