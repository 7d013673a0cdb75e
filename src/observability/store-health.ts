/**
 * Whether a store is reachable, as the gateway last saw it. An outage is logged once when it
 * starts and once when it ends, however many requests and reconnection attempts fail in between.
 */
import type { LogEvents } from './log-events';

export interface StoreHealth {
  readonly name: string;
  /** Whether the last command failed (a cache miss then counts `store_down`). */
  readonly down: boolean;
  failed(error: unknown): void;
  ok(): void;
}

export function createStoreHealth(name: string, log: LogEvents): StoreHealth {
  let down = false;
  return {
    name,
    get down() {
      return down;
    },
    failed(error) {
      if (down) return;
      down = true;
      log.storeUnavailable({ store: name, error });
    },
    ok() {
      if (!down) return;
      down = false;
      log.storeRecovered({ store: name });
    },
  };
}
