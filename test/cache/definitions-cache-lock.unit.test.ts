/**
 * The definitions' single flight across replicas when one replica is late: replica B reads the
 * shared entry (none yet), replica A fetches, stores and releases the lock, and only then does B
 * take the lock. B must read the shared entry again under the lock instead of asking the upstream
 * a second time (seen as two calls for 20 concurrent reads on a loaded machine).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DefinitionsCache } from '../../src/cache/definitions-cache';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import type { CacheStore } from '../../src/cache/cache-store';
import { createDerivedKeys } from '../../src/derived-keys';
import { createMetrics } from '../../src/observability/metrics';
import { upstreamTarget } from '../../src/upstream/target';
import { capturedLog } from '../support/captured-log';

describe('DefinitionsCache across replicas', () => {
  it('asks the upstream once when a replica takes the lock only after another one fetched and released it', async () => {
    const shared = createMemoryCacheStore();
    let releaseB: () => void = () => undefined;
    const aDone = new Promise<void>((resolve) => (releaseB = resolve));
    // Replica B's lock request reaches the store only once replica A has finished its refresh.
    const late: CacheStore = { ...shared, acquireLock: async (...args) => (await aDone, shared.acquireLock(...args)) };
    const options = { keys: createDerivedKeys(randomBytes(32)), metrics: createMetrics({ processMetrics: false }), log: capturedLog('silent').log, freshMs: 60_000, staleIfErrorMs: 60_000, lockMs: 5_000 };
    const a = new DefinitionsCache({ ...options, store: shared });
    const b = new DefinitionsCache({ ...options, store: late });
    const target = upstreamTarget('sandbox', 'http://definitions-lock.test');
    let fetches = 0;
    const fetchFull = () => {
      fetches++;
      return Promise.resolve({ definitions: [{ identifier: 'fw2' }], errors: null });
    };

    const fromB = b.get(target, fetchFull);
    await a.get(target, fetchFull);
    releaseB();
    expect((await fromB).definitions).toEqual([{ identifier: 'fw2' }]);
    expect(fetches).toBe(1);
  });
});
