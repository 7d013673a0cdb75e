import { describe, expect, it } from 'vitest';
import { RetryBudget } from '../../src/upstream/retry-budget';

/** Spends retries until the budget refuses one: how many it allowed. */
function retriesAllowed(budget: RetryBudget): number {
  let allowed = 0;
  while (budget.tryRetry()) allowed++;
  return allowed;
}

describe('RetryBudget', () => {
  it('allows one retry a second over ten seconds on an idle gateway', () => {
    expect(retriesAllowed(new RetryBudget(() => 0))).toBe(10);
  });

  it('adds a tenth of the calls made in the last ten seconds', () => {
    const budget = new RetryBudget(() => 5_000);
    for (let i = 0; i < 200; i++) budget.noteCall();
    expect(retriesAllowed(budget)).toBe(30);
  });

  it('forgets calls and retries older than ten seconds', () => {
    let now = 0;
    const budget = new RetryBudget(() => now);
    for (let i = 0; i < 100; i++) budget.noteCall();
    expect(retriesAllowed(budget)).toBe(20);
    now = 10_500;
    expect(retriesAllowed(budget)).toBe(10);
  });
});
