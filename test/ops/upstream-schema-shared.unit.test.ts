/**
 * How replicas share the upstream schema check (src/ops/upstream-schema-shared.ts), on the memory
 * cache store: one claim per environment and interval, results read back only when genuine (MACed
 * with a key derived from CREDENTIAL_KEY) and of the same build (fingerprint).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import { createDerivedKeys } from '../../src/derived-keys';
import { createSharedSchemaChecks, schemaCheckFingerprint, type CheckRecord } from '../../src/ops/upstream-schema-shared';

const namespaces = { sandbox: 'sandbox.abc', production: 'production.def' };
const record: CheckRecord = {
  at: 1_700_000_000_000, ok: true, durationMs: 160, lastSuccessAt: 1_700_000_000_000,
  changes: [{ severity: 'breaking', path: 'Fw2Statement.recipientTin', description: 'Fw2Statement.recipientTin was removed.' }],
  invalidDocuments: [{ id: 'a'.repeat(64), name: 'W2Recipients', message: 'Cannot query field "recipientTin" on type "Fw2Statement".' }],
};

describe('the upstream schema check shared by replicas', () => {
  it('lets one replica claim an environment per interval', async () => {
    const store = createMemoryCacheStore();
    const keys = createDerivedKeys(randomBytes(32));
    const [a, b] = [0, 1].map(() => createSharedSchemaChecks({ store, keys, namespaces, fingerprint: 'f1' }));
    expect(await a!.claim('sandbox', 60_000)).toBe(true);
    expect(await b!.claim('sandbox', 60_000)).toBe(false);
    expect(await b!.claim('production', 60_000)).toBe(true);
  });

  it('reads back what another replica published, but not a record planted or altered without the key, nor another build\'s', async () => {
    const store = createMemoryCacheStore();
    const keys = createDerivedKeys(randomBytes(32));
    const writer = createSharedSchemaChecks({ store, keys, namespaces, fingerprint: 'f1' });
    const reader = createSharedSchemaChecks({ store, keys, namespaces, fingerprint: 'f1' });
    expect(await reader.latest('sandbox')).toBeUndefined();
    await writer.publish('sandbox', record, 60_000);
    expect(await reader.latest('sandbox')).toEqual(record);
    expect(await reader.latest('production')).toBeUndefined();
    expect(await createSharedSchemaChecks({ store, keys, namespaces, fingerprint: 'f2' }).latest('sandbox')).toBeUndefined();
    // Someone with write access to the cache Redis but not CREDENTIAL_KEY hides the breaking change.
    const key = 'sgw:cache:{sandbox.abc}:schema-check:f1';
    const stored = JSON.parse((await store.get(key)) ?? '{}') as { record: CheckRecord; mac: string };
    await store.set(key, JSON.stringify({ record: { ...stored.record, changes: [], invalidDocuments: [] }, mac: stored.mac }), 60_000);
    expect(await reader.latest('sandbox')).toBeUndefined();
    const planter = createSharedSchemaChecks({ store, keys: createDerivedKeys(randomBytes(32)), namespaces, fingerprint: 'f1' });
    await planter.publish('sandbox', { ...record, changes: [] }, 60_000);
    expect(await reader.latest('sandbox')).toBeUndefined();
  });

  it('fingerprints a build by its served schema and its trusted documents, in any order', () => {
    const sdl = 'type Query { a: Int }';
    expect(schemaCheckFingerprint(sdl, ['b', 'a'])).toBe(schemaCheckFingerprint(sdl, ['a', 'b']));
    expect(schemaCheckFingerprint(sdl, ['a'])).not.toBe(schemaCheckFingerprint(sdl, ['a', 'b']));
    expect(schemaCheckFingerprint('type Query { a: String }', ['a'])).not.toBe(schemaCheckFingerprint(sdl, ['a']));
  });
});
