/**
 * The circuit's state machine (src/upstream/circuit.ts) on a clock the test moves: consecutive
 * failures open it, an answer resets the count, an open circuit admits nothing until its cooldown,
 * then one trial call whose outcome closes or reopens it. A timed-out call counts as a failure
 * only when the probe of the upstream failed too: one caller's slow calls open nothing.
 */
import { describe, expect, it } from 'vitest';
import { Circuit, type CircuitAdmission } from '../../src/upstream/circuit';

const FAILURES = 3;
const COOLDOWN_MS = 10_000;

function circuit() {
  let now = 1_000_000;
  const breaker = new Circuit({ failures: FAILURES, cooldownMs: COOLDOWN_MS, now: () => now });
  const admit = (): CircuitAdmission => {
    const admission = breaker.admit();
    if (!admission) throw new Error(`refused while ${breaker.state}`);
    return admission;
  };
  const open = () => {
    for (let i = 0; i < FAILURES; i++) admit().failed();
    expect(breaker.state).toBe('open');
  };
  return { breaker, admit, open, advance: (ms: number) => void (now += ms) };
}

describe('Circuit', () => {
  it('opens after `failures` consecutive failed calls and then admits nothing', () => {
    const { breaker, admit } = circuit();
    for (let i = 0; i < FAILURES - 1; i++) admit().failed();
    expect(breaker.state).toBe('closed');
    admit().failed();
    expect(breaker.state).toBe('open');
    expect(breaker.admit()).toBeUndefined();
    expect(breaker.retryAfterSeconds()).toBe(10);
  });

  it('counts failures only while consecutive: an answer resets the count', () => {
    const { breaker, admit } = circuit();
    for (let i = 0; i < FAILURES - 1; i++) admit().failed();
    admit().succeeded();
    for (let i = 0; i < FAILURES - 1; i++) admit().failed();
    expect(breaker.state).toBe('closed');
  });

  it('lets one trial call through after the cooldown; its success closes the circuit', () => {
    const { breaker, admit, open, advance } = circuit();
    open();
    advance(COOLDOWN_MS);
    expect(breaker.state).toBe('half-open');
    const trial = admit();
    expect(breaker.admit()).toBeUndefined();
    expect(breaker.retryAfterSeconds()).toBe(1);
    trial.succeeded();
    expect(breaker.state).toBe('closed');
  });

  it('opens again for another cooldown when the trial call fails', () => {
    const { breaker, admit, open, advance } = circuit();
    open();
    advance(COOLDOWN_MS);
    admit().failed();
    expect(breaker.state).toBe('open');
    expect(breaker.retryAfterSeconds()).toBe(10);
  });

  it('makes the next call the trial when the trial call was released', () => {
    const { breaker, admit, open, advance } = circuit();
    open();
    advance(COOLDOWN_MS);
    admit().released();
    expect(breaker.state).toBe('half-open');
    admit().succeeded();
    expect(breaker.state).toBe('closed');
  });

  describe('a timed-out call', () => {
    it('does not count while the probe found the upstream up, however many time out (one caller\'s slow reads)', () => {
      const { breaker, admit } = circuit();
      for (let i = 0; i < 10 * FAILURES; i++) admit().timedOut(true);
      expect(breaker.state).toBe('closed');
    });

    it('counts as failed when the probe failed too (an upstream that hangs)', () => {
      const { breaker, admit } = circuit();
      const calls = Array.from({ length: FAILURES }, () => admit());
      for (const call of calls) call.timedOut(false);
      expect(breaker.state).toBe('open');
    });

    it('neither adds to nor resets the count of failures when the probe found the upstream up', () => {
      const { breaker, admit } = circuit();
      admit().failed();
      admit().timedOut(true);
      admit().failed();
      expect(breaker.state).toBe('closed');
      admit().timedOut(false);
      expect(breaker.state).toBe('open');
    });

    it('closes a half-open circuit as its trial when the probe found the upstream up', () => {
      const { breaker, admit, open, advance } = circuit();
      open();
      advance(COOLDOWN_MS);
      admit().timedOut(true);
      expect(breaker.state).toBe('closed');
      expect(breaker.admit()).toBeDefined();
    });

    it('opens a half-open circuit again as its trial when the probe failed too', () => {
      const { breaker, admit, open, advance } = circuit();
      open();
      advance(COOLDOWN_MS);
      admit().timedOut(false);
      expect(breaker.state).toBe('open');
      expect(breaker.retryAfterSeconds()).toBe(10);
    });

    it('keeps the trial out until its probe has answered, so no second trial goes meanwhile', () => {
      const { breaker, admit, open, advance } = circuit();
      open();
      advance(COOLDOWN_MS);
      const trial = admit();
      // The call timed out; the probe is still on its way: the circuit has heard nothing yet.
      advance(1_500);
      expect(breaker.admit()).toBeUndefined();
      trial.timedOut(true);
      expect(breaker.state).toBe('closed');
    });

    it('is reported once: a second report of the same trial changes nothing', () => {
      const { breaker, admit, open, advance } = circuit();
      open();
      advance(COOLDOWN_MS);
      const trial = admit();
      trial.timedOut(true);
      admit().failed();
      trial.timedOut(false);
      expect(breaker.state).toBe('closed');
    });
  });
});
