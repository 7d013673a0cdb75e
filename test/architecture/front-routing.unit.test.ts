/**
 * One pipeline per product: the drop-in front and the gateway's `/graphql` are two Yoga servers,
 * and which one a request belongs to is decided once, at the edge, by its path. These rules keep
 * that true: no plugin asks which product a request belongs to, and the front's per-request state
 * never leaks into the gateway's pipeline.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isUnder, listSourceFiles, readSourceGraph, ROOT } from '../../scripts/source-graph';

const SCOPE = ['src', 'additional-resolvers', '.meshrc.ts'];
const files = listSourceFiles(ROOT, SCOPE);
const graph = readSourceGraph(ROOT, SCOPE);

function naming(identifier: string): string[] {
  const pattern = new RegExp(`\\b${identifier}\\b`);
  return files.filter((file) => pattern.test(readFileSync(path.join(ROOT, file), 'utf8')));
}

describe('the routing between the two products', () => {
  it('asks whether a request is the front\'s only at the edge: isFrontPath is named by its definition and src/gateway/server.ts alone', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(naming('isFrontPath')).toEqual(['src/drop-in/front-paths.ts', 'src/gateway/server.ts']);
  });

  it('has no predicate past the edge that tells a front request from a /graphql one (isDropInRequest)', () => {
    expect(naming('isDropInRequest')).toEqual([]);
  });

  it('keeps the front\'s per-request state (src/drop-in/state.ts) within src/drop-in/, where the gateway\'s request state only creates its slot', () => {
    const readers = graph.edges.filter((edge) => edge.to === 'src/drop-in/state.ts').map((edge) => edge.from);
    expect(readers.length, 'nothing reads the front\'s state').toBeGreaterThan(0);
    expect(readers.filter((file) => !isUnder(file, 'src/drop-in') && file !== 'src/gateway/request-state.ts')).toEqual([]);
  });

  it('gives the gateway\'s plugin list none of the front\'s plugins (src/gateway/plugins.ts imports nothing of src/drop-in/)', () => {
    const imports = graph.edges.filter((edge) => edge.from === 'src/gateway/plugins.ts');
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((edge) => isUnder(edge.to, 'src/drop-in')).map((edge) => edge.to)).toEqual([]);
  });
});
