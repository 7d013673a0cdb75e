/** The example page's wait text (examples/spa/src/wait-text.ts): a long RATE_LIMITED wait in minutes. */
import { describe, expect, it } from 'vitest';
import { waitText } from '../../examples/spa/src/wait-text';

describe('waitText', () => {
  it('shows a wait under a minute in seconds', () => {
    expect(waitText(59)).toBe('59 s');
  });

  it('shows a longer wait in minutes and seconds, not as 411 s', () => {
    expect(waitText(411)).toBe('6 min 51 s');
    expect(waitText(900)).toBe('15 min');
  });
});
