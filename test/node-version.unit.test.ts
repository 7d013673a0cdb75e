/**
 * unsupportedNode: the compiled gateway started on an old Node says why, instead of failing with a
 * TypeError from inside undici (what Node 20 did).
 */
import { describe, expect, it } from 'vitest';
import { unsupportedNode } from '../src/node-version';

describe('unsupportedNode', () => {
  it('refuses Node 20 and 22, naming the version needed and the one found', () => {
    expect(unsupportedNode('20.20.2')).toMatch(/needs Node 24 or later; this is Node 20\.20\.2/);
    expect(unsupportedNode('22.19.0')).toBeDefined();
  });

  it('accepts Node 24 and later', () => {
    expect(unsupportedNode('24.21.0')).toBeUndefined();
    expect(unsupportedNode('26.1.0')).toBeUndefined();
  });
});
