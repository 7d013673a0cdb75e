/**
 * Where one gateway is in its life, for /readiness: `starting` until it listens, `serving` until
 * SIGTERM, then `stopping` (503 at once, while requests are still served: src/gateway/drain.ts).
 * Only serving is "send me traffic"; a dependency being down is not a phase (see use-health.ts).
 */
export type Phase = 'starting' | 'serving' | 'stopping';

export interface Lifecycle {
  readonly phase: Phase;
  serving(): void;
  stopping(): void;
}

export function createLifecycle(): Lifecycle {
  let phase: Phase = 'starting';
  return {
    get phase() {
      return phase;
    },
    serving() {
      if (phase === 'starting') phase = 'serving';
    },
    stopping() {
      phase = 'stopping';
    },
  };
}
