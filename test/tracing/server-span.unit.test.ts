/** firstSegmentOf (src/tracing/server-span.ts): all a SERVER span keeps of a path no route matches. */
import { describe, expect, it } from 'vitest';
import { firstSegmentOf } from '../../src/tracing/server-span';

describe('firstSegmentOf', () => {
  it.each([
    ['/a/secret-thing/x', '/a'],
    ['/a?token=secret', '/a'],
    ['/a#x', '/a'],
    ['/', '/'],
    ['/?q=secret', '/'],
    ['//evil/x', '/'],
    ['/x\\..\\metrics', '/x'],
    ['/x%2F..%2fmetrics', '/x'],
    ['/x%5csecret', '/x'],
    [`/${'a'.repeat(100)}`, `/${'a'.repeat(63)}`],
  ])('keeps %s as %s', (target, kept) => {
    expect(firstSegmentOf(target)).toBe(kept);
  });

  it.each(['http://evil/metrics', '*', '', undefined])('keeps nothing of %s, which is not a path', (target) => {
    expect(firstSegmentOf(target)).toBeUndefined();
  });
});
