/**
 * Every upstream HTTP call goes through here: a hard timeout (UPSTREAM_TIMEOUT_MS), and failures
 * turned into the contract's codes before anything can echo an upstream URL or body.
 * Refused, timed out or 5xx: UPSTREAM_UNAVAILABLE. The caller decides what a 401 means.
 */
import type { Environment } from '../config';
import { gatewayError } from '../errors';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics, UpstreamOutcome } from '../observability/metrics';

export interface UpstreamCall {
  readonly environment: Environment;
  /** A bounded label (the upstream operation), for logs and metrics. */
  readonly operation: string;
}

export type UpstreamFetch = (url: string, init: RequestInit, call: UpstreamCall) => Promise<Response>;

export interface UpstreamFetchOptions {
  readonly timeoutMs: number;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  readonly fetch?: typeof globalThis.fetch;
}

export function createUpstreamFetch(options: UpstreamFetchOptions): UpstreamFetch {
  const fetchFn = options.fetch ?? globalThis.fetch;
  return async (url, init, call) => {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const started = performance.now();
    const observe = (outcome: UpstreamOutcome) => options.metrics.upstreamRequest(call.environment, call.operation, outcome, (performance.now() - started) / 1000);
    let response: Response;
    try {
      response = await fetchFn(url, { ...init, signal, redirect: 'manual' });
    } catch (error) {
      const timedOut = timeout.aborted;
      // The caller went away (its request was aborted): not the upstream's failure, not measured.
      if (timedOut || !init.signal?.aborted) observe(timedOut ? 'timeout' : 'error');
      options.log.upstreamFailed({ ...call, reason: timedOut ? 'timeout' : 'refused' });
      throw gatewayError('UPSTREAM_UNAVAILABLE', undefined, { cause: error });
    }
    if (response.status >= 500) {
      observe('error');
      await response.body?.cancel().catch(() => undefined);
      options.log.upstreamFailed({ ...call, reason: 'status', status: response.status });
      throw gatewayError('UPSTREAM_UNAVAILABLE');
    }
    observe('ok');
    return response;
  };
}
