/**
 * A bound on the work any walk over a client's document may do. Documents are walked before
 * validation on the drop-in front (which refuses nothing graphql-js would), and a walk that
 * expands fragment spreads can do work exponential in the text (`F0 { ...F1 ...F1 }`, 25 levels
 * in under 1 KB). The walks count each fragment once and spend from this budget per node they
 * visit and per entry they merge; past it, the request is QUERY_TOO_COMPLEX, never a frozen
 * event loop.
 */
import { gatewayError } from '../errors';

/**
 * Twice what any document within the token limit (10,000 tokens: at most 10,000 selections)
 * needs when each fragment is walked once; spent in a few milliseconds at most.
 */
export const MAX_WALK_STEPS = 20_000;

export class WalkBudget {
  private left: number;

  constructor(readonly max: number = MAX_WALK_STEPS) {
    this.left = max;
  }

  /** Spends `steps`; throws QUERY_TOO_COMPLEX once the budget is gone. */
  spend(steps = 1): void {
    this.left -= steps;
    if (this.left < 0) throw gatewayError('QUERY_TOO_COMPLEX', 'The query is too large to check: split it into smaller requests.');
  }
}
