/** Callers waiting for a named event (a lock's release), each with its own timeout. */
export interface Waiters {
  /** Resolves at the next `wake(key)`, or after `ms`. */
  wait(key: string, ms: number): Promise<void>;
  wake(key: string): void;
  wakeAll(): void;
}

export function createWaiters(): Waiters {
  const waiting = new Map<string, Set<() => void>>();
  const wake = (key: string) => {
    const list = waiting.get(key);
    waiting.delete(key);
    for (const resolve of list ?? []) resolve();
  };
  return {
    wait(key, ms) {
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiting.get(key)?.delete(done);
          resolve();
        }, Math.max(0, ms));
        let list = waiting.get(key);
        if (!list) waiting.set(key, (list = new Set()));
        list.add(done);
      });
    },
    wake,
    wakeAll() {
      for (const key of [...waiting.keys()]) wake(key);
    },
  };
}
