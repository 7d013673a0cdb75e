/**
 * The shared dependencies' states for /readiness and its gauge, found in the background so that
 * /readiness answers at once: a Kubernetes probe gives up after a second, and a readiness answer
 * that waited on a hanging upstream could fail it, or say `degraded` to a request that arrived just
 * as SIGTERM did. Each dependency is checked on its own (a hanging upstream does not hold back the
 * Redis states), at most once a second and never while its previous check still waits; a check
 * gives up after `timeoutMs`, so one that stops answering shows `down` within interval + timeout.
 *
 * The checks start with the first `watch()` (the first /readiness) and run until `close()`: a
 * gateway nobody asks makes no calls (nor does an in-process test gateway that never asks), and one
 * that is asked keeps its states fresh whatever the asker's period. Their timers are unref'd.
 */
import type { CacheStore } from '../cache/cache-store';
import type { Dependency, DependencyStates } from '../observability/metrics';
import type { SessionStore } from '../session/session-store';
import type { UpstreamProbe } from '../upstream/probe';

export type DependencyState = DependencyStates[Dependency];

export interface DependencyWatchOptions {
  readonly sessionStore: Pick<SessionStore, 'ping'>;
  readonly cacheStore: Pick<CacheStore, 'ping'>;
  /** Whether each upstream answers (the same probe the circuit asks after a timeout). */
  readonly upstreams: Pick<UpstreamProbe, 'up'>;
  /** The least time between the starts of two checks of one dependency. */
  readonly intervalMs?: number;
  /** How long one check may take before its dependency counts as down (the upstream probe's own 2 s). */
  readonly timeoutMs?: number;
}

export interface DependencyWatch {
  /** Starts the background checks, once; later calls change nothing. */
  watch(): void;
  /** The states last found: a dependency not yet checked is absent. Asks nothing. */
  states(): Partial<DependencyStates>;
  /** Stops the checks: none starts after this. */
  close(): void;
}

/** `up` when `check` resolves true within `ms`, `down` when it resolves false, rejects or takes longer. */
async function stateWithin(check: () => Promise<boolean>, ms: number): Promise<DependencyState> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return (await Promise.race([check(), late])) ? 'up' : 'down';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** A store is up when its ping resolves. */
const pinged = (ping: () => Promise<void>) => () => ping().then(() => true);

export function createDependencyWatch({ sessionStore, cacheStore, upstreams, intervalMs = 1_000, timeoutMs = 2_000 }: DependencyWatchOptions): DependencyWatch {
  const checks: Readonly<Record<Dependency, () => Promise<boolean>>> = {
    sessionStore: pinged(() => sessionStore.ping()),
    cacheStore: pinged(() => cacheStore.ping()),
    upstreamSandbox: () => upstreams.up('sandbox'),
    upstreamProduction: () => upstreams.up('production'),
  };
  const found: Partial<Record<Dependency, DependencyState>> = {};
  const timers = new Set<NodeJS.Timeout>();
  let started = false;
  let closed = false;

  const check = async (dependency: Dependency): Promise<void> => {
    const began = performance.now();
    const state = await stateWithin(checks[dependency], timeoutMs);
    if (closed) return;
    found[dependency] = state;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void check(dependency);
    }, Math.max(0, intervalMs - (performance.now() - began)));
    timer.unref();
    timers.add(timer);
  };

  return {
    watch() {
      if (started || closed) return;
      started = true;
      for (const dependency of Object.keys(checks) as Dependency[]) void check(dependency);
    },
    states: () => ({ ...found }),
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
