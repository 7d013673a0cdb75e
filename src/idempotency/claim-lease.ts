/**
 * A running claim's lease, renewed while its request runs: a mutation of several root fields on a
 * slow upstream may run far longer than any fixed hold, and a claim that lapsed while its request
 * still ran would let the same key run a second time. Renewed three times per lease, so one late
 * renewal (a busy event loop, a Redis failover) does not lose it; a claim that is no longer this
 * request's (settled as orphaned by another replica after a long stall) stops being renewed.
 */
import type { IdempotencyStore, RecordName } from './idempotency-store';

export interface ClaimLease {
  /** Stops renewing (the answer is kept, or the claim released). */
  stop(): void;
}

export interface LeaseOptions {
  readonly store: IdempotencyStore;
  readonly leaseMs: number;
  readonly clock: () => number;
  /** A renewal that failed (the store down): the claim may lapse; the caller logs it. */
  readonly failed: (error: unknown) => void;
}

export function holdLease(name: RecordName, token: string, { store, leaseMs, clock, failed }: LeaseOptions): ClaimLease {
  let stopped = false;
  const renew = () => {
    const now = clock();
    store.renew(name, token, now + leaseMs, now).then(
      (held) => {
        if (!held) stop();
      },
      failed,
    );
  };
  const timer = setInterval(renew, Math.max(50, Math.floor(leaseMs / 3)));
  // A request in flight keeps the process alive; its lease need not.
  timer.unref();
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
  };
  return { stop };
}
