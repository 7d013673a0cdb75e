/**
 * Retries and the circuit of the upstream client (fetch.ts), one of each per environment and
 * replica. Written here rather than taken from cockatiel or opossum: what the contract asks is
 * small (a count, a jittered delay, a budget, three states), and every attempt and every wait must
 * fit inside the one deadline of the upstream client's call (UPSTREAM_TIMEOUT_MS), which a
 * library's policies would have to be wrapped in more than used. fetch.ts asks `admit` before a
 * call and `retryDelay` after a failed attempt; this file decides, fetch.ts makes the calls. A
 * timed-out call is judged here too, by a probe of its upstream (circuit.ts says why, probe.ts how).
 */
import type { Environment } from '../environment';
import { GatewayError } from '../errors';
import type { GatewayMetrics } from '../observability/metrics';
import { Circuit, CIRCUIT_STATE, type CircuitAdmission } from './circuit';
import { RetryBudget } from './retry-budget';

export interface ResilienceOptions {
  /** Retries of a call that is safe to repeat (UPSTREAM_RETRIES, default 1; 0: none). */
  readonly retries: number;
  /** Consecutive failed calls that open an environment's circuit (UPSTREAM_CIRCUIT_FAILURES). */
  readonly circuitFailures: number;
  /** How long an open circuit stays open before its trial call (UPSTREAM_CIRCUIT_COOLDOWN). */
  readonly circuitCooldownMs: number;
  readonly metrics: GatewayMetrics;
  /**
   * Whether an environment's upstream answers a probe (probe.ts's `up`): asked after a timed-out
   * call, which counts toward opening the circuit only when this says no. Never rejects.
   */
  readonly upstreamUp: (environment: Environment) => Promise<boolean>;
  readonly now?: () => number;
  /** In [0, 1): the jitter of the backoff. */
  readonly random?: () => number;
}

/** The longest `Retry-After` of an upstream's answer that a retry waits for. */
export const MAX_RETRY_AFTER_MS = 1_000;
/** The first retry waits 50 to 100 ms, each next one twice that ("equal jitter"). */
const BACKOFF_BASE_MS = 100;

/** What the caller reports about one admitted call, exactly once. */
export interface UpstreamAdmission extends Omit<CircuitAdmission, 'timedOut'> {
  /**
   * The call timed out: the circuit hears of it once a probe of the upstream has answered (within
   * its 2 s, in the background: the caller's answer does not wait for it).
   */
  timedOut(): void;
}

export interface UpstreamResilience {
  /** Admits one call to `environment`, or throws UPSTREAM_UNAVAILABLE with Retry-After while its circuit is open. */
  admit(environment: Environment): UpstreamAdmission;
  /**
   * After a failed attempt that may be retried (`retry` counts from 1): how long to wait before
   * it, or undefined when it is not made (no retries left, over the budget, past the deadline).
   */
  retryDelay(environment: Environment, retry: number, retryAfterMs: number | undefined, remainingMs: number): number | undefined;
  /** A retried attempt's outcome, for `statement_gateway_upstream_retries_total`. */
  retried(environment: Environment, outcome: 'ok' | 'error'): void;
}

/** Retry-After in milliseconds (delay-seconds or an HTTP date), undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function createResilience(options: ResilienceOptions): UpstreamResilience {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const circuits = new Map<Environment, Circuit>();
  const budgets = new Map<Environment, RetryBudget>();
  const circuitOf = (environment: Environment): Circuit => {
    let circuit = circuits.get(environment);
    if (!circuit) circuits.set(environment, (circuit = new Circuit({ failures: options.circuitFailures, cooldownMs: options.circuitCooldownMs, now })));
    return circuit;
  };
  const budgetOf = (environment: Environment): RetryBudget => {
    let budget = budgets.get(environment);
    if (!budget) budgets.set(environment, (budget = new RetryBudget(now)));
    return budget;
  };
  // Read when scraped, so that an open circuit past its cooldown shows half-open without a call.
  options.metrics.watchCircuits(() => [...circuits].map(([environment, circuit]) => [environment, CIRCUIT_STATE[circuit.state]] as const));

  return {
    admit(environment) {
      const circuit = circuitOf(environment);
      const admission = circuit.admit();
      if (!admission) throw circuitOpen(circuit.retryAfterSeconds());
      budgetOf(environment).noteCall();
      return {
        succeeded: () => admission.succeeded(),
        failed: () => admission.failed(),
        released: () => admission.released(),
        // Concurrent timeouts share one probe per environment (probe.ts), so a burst costs one GET.
        timedOut: () => void options.upstreamUp(environment).then((up) => admission.timedOut(up)),
      };
    },
    retryDelay(environment, retry, retryAfter, remainingMs) {
      if (retry > options.retries) return undefined;
      const backoff = BACKOFF_BASE_MS * 2 ** (retry - 1) * (0.5 + random() / 2);
      const delay = Math.max(backoff, Math.min(retryAfter ?? 0, MAX_RETRY_AFTER_MS));
      // A retry that could not get an answer before the overall deadline is not worth its load.
      if (delay >= remainingMs) return undefined;
      return budgetOf(environment).tryRetry() ? delay : undefined;
    },
    retried: (environment, outcome) => options.metrics.upstreamRetry(environment, outcome),
  };
}

/** Errors of an open circuit: no call was made (an idempotent mutation keeps nothing for them). */
class CircuitRefusal extends GatewayError {}

export function isCircuitRefusal(error: unknown): boolean {
  return error instanceof CircuitRefusal;
}

function circuitOpen(retryAfterSeconds: number): GatewayError {
  return new CircuitRefusal('UPSTREAM_UNAVAILABLE', undefined, { headers: { 'retry-after': String(retryAfterSeconds) } });
}
