/**
 * Whether an upstream environment is up, asked apart from any caller's call: `GET {base}/v2/graphql`,
 * where any answer below 500 within `timeoutMs` means up (its GraphQL endpoint refuses a GET, but
 * only a live server answers at all). Two things ask: the circuit, before it counts a timed-out
 * call against the upstream (a slow answer may be the caller's own heavy read, resilience.ts), and
 * the readiness checks (ops/dependency-watch.ts).
 *
 * A burst of timeouts must not become a burst of probes, so callers share the probe in flight per
 * environment and reuse its result for `reuseMs` after it ends. The probe is no call through the
 * circuit: it never asks it, never counts in it, and is not retried.
 */
import { request, type Dispatcher } from 'undici';
import type { Environment } from '../environment';
import type { UpstreamTarget } from './target';

export interface UpstreamProbeOptions {
  readonly upstreams: Readonly<Record<Environment, Pick<UpstreamTarget, 'graphqlUrl'>>>;
  /** How long a probe may take before the upstream counts as down (the contract's 2 s). */
  readonly timeoutMs?: number;
  /**
   * How long a finished probe's result is reused. Short: long enough that a burst of timed-out
   * calls costs one probe, well under the readiness checks' second so that each of them asks anew.
   */
  readonly reuseMs?: number;
  readonly now?: () => number;
  /** The egress proxy's dispatcher (egress.ts), as the calls it stands for use it; else undici's global one. */
  readonly dispatcher?: Dispatcher;
}

export interface UpstreamProbe {
  /** Whether `environment`'s upstream answers; never rejects (a failed probe is `false`). */
  up(environment: Environment): Promise<boolean>;
  /** Ends the probes in flight (as down) and answers later ones `false` at once: the gateway is closing. */
  close(): void;
}

/** Sent as the upstream calls send it (fetch.ts), so the probe looks like the gateway to a firewall or WAF. */
const PROBE_HEADERS = { 'user-agent': 'statement-gateway', accept: '*/*' };
/** The most of a probe's answer read before its connection is let go; the status alone decides. */
const MAX_PROBE_BODY_BYTES = 64 * 1024;

async function answersBelow500(url: string, timeoutMs: number, closing: AbortSignal, dispatcher: Dispatcher | undefined): Promise<boolean> {
  if (closing.aborted) return false;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  // A probe never holds a process open that would otherwise exit.
  timer.unref();
  const onClose = () => controller.abort();
  closing.addEventListener('abort', onClose, { once: true });
  try {
    const answer = await request(url, { method: 'GET', headers: PROBE_HEADERS, signal: controller.signal, ...(dispatcher ? { dispatcher } : {}) });
    // Read (within the same timeout) so the connection goes back to the pool instead of hanging.
    await answer.body.dump({ limit: MAX_PROBE_BODY_BYTES, signal: controller.signal });
    return answer.statusCode < 500;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    closing.removeEventListener('abort', onClose);
  }
}

export function createUpstreamProbe({ upstreams, timeoutMs = 2_000, reuseMs = 500, now = Date.now, dispatcher }: UpstreamProbeOptions): UpstreamProbe {
  const closing = new AbortController();
  const latest = new Map<Environment, { readonly result: Promise<boolean>; endedAt?: number }>();
  return {
    up(environment) {
      const last = latest.get(environment);
      if (last && (last.endedAt === undefined || now() - last.endedAt < reuseMs)) return last.result;
      const result = answersBelow500(upstreams[environment].graphqlUrl, timeoutMs, closing.signal, dispatcher);
      const entry: { readonly result: Promise<boolean>; endedAt?: number } = { result };
      latest.set(environment, entry);
      void result.then(() => (entry.endedAt = now()));
      return result;
    },
    close: () => closing.abort(),
  };
}
