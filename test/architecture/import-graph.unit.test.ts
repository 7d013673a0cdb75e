/**
 * The import-graph reader and the circle finder that test/architecture/imports.unit.test.ts relies
 * on: a layout test whose tool cannot see a circle would pass forever. The reader runs on a
 * throw-away project written to a temporary folder; the finder on small graphs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elementaryCycles, formatCycle, tangledComponents } from '../../scripts/graph-cycles';
import { folderDot } from '../../scripts/import-graph';
import { readSourceGraph, type SourceGraph } from '../../scripts/source-graph';

const FIXTURE: Record<string, string> = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  // The circle that config/index.ts and config/service-accounts.ts made until they were split.
  'src/config/index.ts': "import { parseAccounts } from './service-accounts';\nexport type Environment = 'sandbox' | 'production';\nexport const accounts = parseAccounts('');\n",
  'src/config/service-accounts.ts': "import type { Environment } from './index';\nexport function parseAccounts(_: string): Environment[] {\n  return [];\n}\n",
  'src/cache/store.ts': "export { reader } from '../http/reader';\nimport './side-effect';\n",
  'src/cache/side-effect.ts': 'export {};\n',
  'src/http/reader.ts': "export const reader = async (): Promise<unknown> => import('../cache/store');\nexport type Lazy = import('../cache/side-effect').Nothing;\n",
  'src/http/broken.ts': "import { gone } from './missing';\nimport { z } from 'zod';\nexport const both = [gone, z];\n",
  'src/leaf.ts': "import { type Environment } from './config';\nexport const e: Environment = 'sandbox';\n",
};

let root: string;
let graph: SourceGraph;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'import-graph-'));
  for (const [file, text] of Object.entries(FIXTURE)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  graph = readSourceGraph(root, ['src']);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('readSourceGraph', () => {
  it('reads imports, re-exports, side-effect imports, import() calls and import types', () => {
    const edges = graph.edges.map((e) => `${e.from} -> ${e.to}${e.typeOnly ? ' (type-only)' : ''}`);
    expect(edges.sort()).toEqual([
      'src/cache/store.ts -> src/cache/side-effect.ts',
      'src/cache/store.ts -> src/http/reader.ts',
      'src/config/index.ts -> src/config/service-accounts.ts',
      'src/config/service-accounts.ts -> src/config/index.ts (type-only)',
      'src/http/reader.ts -> src/cache/side-effect.ts (type-only)',
      'src/http/reader.ts -> src/cache/store.ts',
      'src/leaf.ts -> src/config/index.ts (type-only)',
    ]);
  });

  it('reports a relative import that resolves to no file, and leaves packages out', () => {
    expect(graph.unresolved).toEqual([{ from: 'src/http/broken.ts', specifier: './missing', line: 1 }]);
  });

  it('finds the circle made by a type-only import, and the one made by an import() call', () => {
    const files = graph.files;
    expect(tangledComponents(files, graph.edges)).toEqual([
      ['src/cache/store.ts', 'src/http/reader.ts'],
      ['src/config/index.ts', 'src/config/service-accounts.ts'],
    ]);
    expect(elementaryCycles(files, graph.edges).map(formatCycle)).toEqual([
      'src/cache/store.ts -> src/http/reader.ts -> src/cache/store.ts',
      'src/config/index.ts -> src/config/service-accounts.ts -> src/config/index.ts',
    ]);
  });
});

describe('elementaryCycles', () => {
  it('lists each cycle once, from its smallest file, self-imports included', () => {
    const edges = [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'a' },
      { from: 'd', to: 'd' },
      { from: 'c', to: 'e' },
    ];
    const nodes = ['a', 'b', 'c', 'd', 'e'];
    expect(tangledComponents(nodes, edges)).toEqual([['a', 'b', 'c'], ['d']]);
    expect(elementaryCycles(nodes, edges).map(formatCycle)).toEqual(['a -> b -> a', 'a -> b -> c -> a', 'd -> d']);
  });

  it('stops listing at the limit, while the components stay complete', () => {
    const nodes = ['a', 'b', 'c', 'd'];
    const edges = nodes.flatMap((from) => nodes.filter((to) => to !== from).map((to) => ({ from, to })));
    expect(elementaryCycles(nodes, edges, 5)).toHaveLength(5);
    expect(elementaryCycles(nodes, edges)).toHaveLength(20);
    expect(tangledComponents(nodes, edges)).toEqual([nodes]);
  });
});

describe('folderDot', () => {
  it('draws one arrow per pair of src/ folders, dashed when every import behind it is type-only', () => {
    const dot = folderDot(graph.edges);
    expect(dot).toContain('"src/cache" -> "src/http" [label="1"];');
    expect(dot).toContain('"src/http" -> "src/cache" [label="2"];');
    expect(dot).toContain('"src/leaf.ts" -> "src/config" [label="1", style=dashed];');
    expect(dot).not.toContain('"src/config" -> "src/config"');
  });
});
