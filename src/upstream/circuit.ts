/**
 * Why a circuit: when an upstream environment stops answering, every call to it holds a socket
 * until the timeout and adds to the load that keeps it down. After `failures` consecutive failed
 * calls (no answer, a timeout, a 5xx; a 4xx is an answer) this replica stops calling it: callers
 * are told at once, with the seconds until it half-opens. After `cooldownMs` one call (the probe)
 * goes through: its success closes the circuit, its failure opens it again. A call that failed
 * after its retries counts once (the caller reports the call, not its attempts).
 */

/** The gauge's values: 0 closed, 1 half-open, 2 open. */
export const CIRCUIT_STATE = { closed: 0, 'half-open': 1, open: 2 } as const;
export type CircuitState = keyof typeof CIRCUIT_STATE;

/** What the caller reports about one admitted call, exactly once. */
export interface CircuitAdmission {
  /** The upstream answered (any status below 500). */
  succeeded(): void;
  /** No answer, a timeout, or a 5xx. */
  failed(): void;
  /** Neither: the caller went away before the upstream was heard. */
  released(): void;
}

export interface CircuitOptions {
  /** Consecutive failed calls that open the circuit (UPSTREAM_CIRCUIT_FAILURES). */
  readonly failures: number;
  /** How long it stays open before the probe (UPSTREAM_CIRCUIT_COOLDOWN). */
  readonly cooldownMs: number;
  readonly now: () => number;
}

export class Circuit {
  private consecutiveFailures = 0;
  /** When open: the time the probe may go. Undefined while closed. */
  private openUntil: number | undefined;
  private probing = false;

  constructor(private readonly options: CircuitOptions) {}

  get state(): CircuitState {
    if (this.openUntil === undefined) return 'closed';
    return this.probing || this.options.now() >= this.openUntil ? 'half-open' : 'open';
  }

  /** Whole seconds until the probe may go (at least 1 while a probe is out). */
  retryAfterSeconds(): number {
    if (this.openUntil === undefined) return 0;
    return Math.max(1, Math.ceil((this.openUntil - this.options.now()) / 1_000));
  }

  /** An admission for one call, or undefined when no call may be made now. */
  admit(): CircuitAdmission | undefined {
    if (this.openUntil === undefined) return this.closedAdmission();
    if (this.probing || this.options.now() < this.openUntil) return undefined;
    this.probing = true;
    return this.probeAdmission();
  }

  private closedAdmission(): CircuitAdmission {
    return {
      succeeded: () => {
        this.consecutiveFailures = 0;
      },
      failed: () => {
        this.consecutiveFailures += 1;
        if (this.openUntil === undefined && this.consecutiveFailures >= this.options.failures) this.open();
      },
      released: () => undefined,
    };
  }

  private probeAdmission(): CircuitAdmission {
    let settled = false;
    const settle = (then: () => void) => () => {
      if (settled) return;
      settled = true;
      this.probing = false;
      then();
    };
    return {
      succeeded: settle(() => {
        this.openUntil = undefined;
        this.consecutiveFailures = 0;
      }),
      failed: settle(() => this.open()),
      // The probe told nothing: the next call is the probe.
      released: settle(() => undefined),
    };
  }

  private open(): void {
    this.openUntil = this.options.now() + this.options.cooldownMs;
  }
}
