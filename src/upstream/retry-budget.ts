/**
 * Why a budget: a retry doubles the load of a call that failed, and in an outage every call fails,
 * so retries without a bound multiply the outage they meet. Finagle's RetryBudget is the model:
 * over the last 10 s, retries may add at most 10 % to the calls made, plus a reserve of one retry
 * a second, so that an idle gateway still retries a lone transient failure. One per environment
 * and replica; kept in ten one-second buckets so that nothing grows with traffic.
 */

const WINDOW_SECONDS = 10;
/** Retries allowed per call made within the window. */
const RETRY_RATIO = 0.1;
/** Retries allowed per second whatever the traffic (the reserve). */
const RETRIES_PER_SECOND = 1;

export class RetryBudget {
  private readonly seconds = new Array<number>(WINDOW_SECONDS).fill(-1);
  private readonly calls = new Array<number>(WINDOW_SECONDS).fill(0);
  private readonly retries = new Array<number>(WINDOW_SECONDS).fill(0);

  constructor(private readonly now: () => number) {}

  /** A call made (its first attempt). */
  noteCall(): void {
    this.calls[this.bucket()]! += 1;
  }

  /** Spends one retry when the budget allows it: true when the retry may be made. */
  tryRetry(): boolean {
    const allowed = RETRY_RATIO * this.total(this.calls) + RETRIES_PER_SECOND * WINDOW_SECONDS;
    if (this.total(this.retries) >= allowed) return false;
    this.retries[this.bucket()]! += 1;
    return true;
  }

  /** The bucket of the current second, emptied when it last held an older second. */
  private bucket(): number {
    const second = Math.floor(this.now() / 1_000);
    const index = second % WINDOW_SECONDS;
    if (this.seconds[index] !== second) {
      this.seconds[index] = second;
      this.calls[index] = 0;
      this.retries[index] = 0;
    }
    return index;
  }

  private total(counts: readonly number[]): number {
    const oldest = Math.floor(this.now() / 1_000) - WINDOW_SECONDS;
    let sum = 0;
    for (let index = 0; index < WINDOW_SECONDS; index++) if (this.seconds[index]! > oldest) sum += counts[index]!;
    return sum;
  }
}
