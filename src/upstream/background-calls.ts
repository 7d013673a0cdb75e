/**
 * Upstream calls of the gateway's background work (the upstream schema check, ops/), kept out of
 * the circuit. The circuit (resilience.ts) judges the upstream by the calls users' requests make:
 * one introspection an hour that times out says little about the upstream, and must never be the
 * failure that opens the circuit for everyone (nor, succeeding, the success that closes it). So
 * every call made while background work runs, the service account's sign-in it may cause
 * included (that goes through Mesh's SDK and the runtime's one upstream client, several calls
 * away), takes another client: the same timeout, spans, logs and metrics, but a resilience that
 * admits every call, counts none and retries none (the next interval is the retry).
 *
 * An AsyncLocalStorage marks the work rather than a flag on each call, because the sign-in is made
 * by code that knows nothing of who asked for the credential; it is created per gateway (route()),
 * never at module level. A sign-in a request joins while the check's is in flight (one flight per
 * account, credentials/service-accounts.ts) is uncounted too: one call, either way.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { UpstreamFetch } from './fetch';
import type { UpstreamAdmission, UpstreamResilience } from './resilience';

export interface BackgroundCalls {
  /** Runs `work`: every upstream call it starts, now or in the promises it makes, goes out through the uncounted client. */
  run<T>(work: () => T): T;
  /** The runtime's upstream client: `counted` (requests') outside `run`, the uncounted one inside. */
  route(counted: UpstreamFetch): UpstreamFetch;
}

const NOTHING_COUNTED: UpstreamAdmission = { succeeded: () => undefined, failed: () => undefined, released: () => undefined, timedOut: () => undefined };

/** Admits every call and counts none: no circuit, no retry budget, no retries. */
export function uncountedResilience(): UpstreamResilience {
  return { admit: () => NOTHING_COUNTED, retryDelay: () => undefined, retried: () => undefined };
}

/** `uncounted`: an upstream client made with uncountedResilience(). */
export function createBackgroundCalls(uncounted: UpstreamFetch): BackgroundCalls {
  const background = new AsyncLocalStorage<true>();
  return {
    run: (work) => background.run(true, work),
    route: (counted) => (url, init, call) => (background.getStore() ? uncounted : counted)(url, init, call),
  };
}
