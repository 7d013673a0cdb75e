/**
 * Why a circuit: when an upstream environment stops answering, every call to it holds a socket
 * until the timeout and adds to the load that keeps it down. After `failures` consecutive failed
 * calls (no answer, a confirmed timeout, a 5xx; a 4xx is an answer) this replica stops calling it:
 * callers are told at once, with the seconds until it half-opens. After `cooldownMs` one call (the
 * trial) goes through: its success closes the circuit, its failure opens it again. A call that failed
 * after its retries counts once (the caller reports the call, not its attempts).
 *
 * A timeout alone does not blame the upstream: one caller's heavy reads (many PDFs at once) can
 * outlast UPSTREAM_TIMEOUT_MS while the upstream answers everybody else, and counting them would let
 * that one caller open the circuit for every user. So a timed-out call is reported with what a
 * probe of the upstream found (probe.ts): it counts as failed only if the probe failed as well. So
 * does a 500 (or another 5xx but 502/503/504): an input that crashes the upstream's handler, sent
 * ten times by one caller, says nothing of everyone else's calls. Refused or reset connections and
 * 502/503/504, the word of the proxies and balancers in front of the upstream, count as they are.
 */

/** The gauge's values: 0 closed, 1 half-open, 2 open. */
export const CIRCUIT_STATE = { closed: 0, 'half-open': 1, open: 2 } as const;
export type CircuitState = keyof typeof CIRCUIT_STATE;

/** What the caller reports about one admitted call, exactly once. */
export interface CircuitAdmission {
  /** The upstream answered (any status below 500). */
  succeeded(): void;
  /** No answer (refused, reset) or a 5xx. */
  failed(): void;
  /**
   * The call timed out; `upstreamUp`: whether a probe of the upstream answered meanwhile. Down: a
   * failure. Up: the caller's own call was slow, which counts toward nothing while closed, and
   * closes a half-open circuit (the question its trial call asked, "is it up?", is answered; left
   * open, one caller's slow calls could keep taking the single trial and hold everybody out).
   */
  timedOut(upstreamUp: boolean): void;
  /** Neither: the caller went away before the upstream was heard. */
  released(): void;
}

export interface CircuitOptions {
  /** Consecutive failed calls that open the circuit (UPSTREAM_CIRCUIT_FAILURES). */
  readonly failures: number;
  /** How long it stays open before the trial call (UPSTREAM_CIRCUIT_COOLDOWN). */
  readonly cooldownMs: number;
  readonly now: () => number;
}

export class Circuit {
  private consecutiveFailures = 0;
  /** When open: the time the trial call may go. Undefined while closed. */
  private openUntil: number | undefined;
  private trialOut = false;

  constructor(private readonly options: CircuitOptions) {}

  get state(): CircuitState {
    if (this.openUntil === undefined) return 'closed';
    return this.trialOut || this.options.now() >= this.openUntil ? 'half-open' : 'open';
  }

  /** Whole seconds until the trial call may go (at least 1 while one is out). */
  retryAfterSeconds(): number {
    if (this.openUntil === undefined) return 0;
    return Math.max(1, Math.ceil((this.openUntil - this.options.now()) / 1_000));
  }

  /** An admission for one call, or undefined when no call may be made now. */
  admit(): CircuitAdmission | undefined {
    if (this.openUntil === undefined) return this.closedAdmission();
    if (this.trialOut || this.options.now() < this.openUntil) return undefined;
    this.trialOut = true;
    return this.trialAdmission();
  }

  private closedAdmission(): CircuitAdmission {
    const failed = () => {
      this.consecutiveFailures += 1;
      if (this.openUntil === undefined && this.consecutiveFailures >= this.options.failures) this.open();
    };
    return {
      succeeded: () => {
        this.consecutiveFailures = 0;
      },
      failed,
      timedOut: (upstreamUp) => {
        if (!upstreamUp) failed();
      },
      released: () => undefined,
    };
  }

  private trialAdmission(): CircuitAdmission {
    let settled = false;
    const settle = (then: () => void) => () => {
      if (settled) return;
      settled = true;
      this.trialOut = false;
      then();
    };
    const close = () => {
      this.openUntil = undefined;
      this.consecutiveFailures = 0;
    };
    return {
      succeeded: settle(close),
      failed: settle(() => this.open()),
      timedOut: (upstreamUp) => settle(upstreamUp ? close : () => this.open())(),
      // The trial told nothing: the next call is the trial.
      released: settle(() => undefined),
    };
  }

  private open(): void {
    this.openUntil = this.options.now() + this.options.cooldownMs;
  }
}
