/**
 * Keeps the source layout honest: what the style guide says about the layout is checked against
 * the import graph the compiler sees (scripts/source-graph.ts), in-process and in about a second.
 *
 * 1. No import circle among the gateway's own files (src/, additional-resolvers/, .meshrc.ts),
 *    type-only imports included: a circle makes load order decide whether a module is undefined,
 *    and even a type-only one says two files are one concern.
 * 2. No source file over 300 lines in src/, additional-resolvers/, emulator/, scripts/, bench/
 *    (test files are exempt).
 * 3. Dependency direction (the rules that held when this test was written, and that the layout
 *    means):
 *    - src/ imports nothing from test/, scripts/, bench/, additional-resolvers/ or .meshrc.ts:
 *      the gateway runs without its tests and tools, and Mesh's composition root sits above it;
 *    - only test/ imports test/, but for the one gateway launcher (test/support/launcher.ts),
 *      which the benchmark and the soak use too;
 *    - emulator/ imports only emulator/ and sources/: the upstream's double shares the contract,
 *      never the gateway's code, or it would agree with the gateway's mistakes;
 *    - sources/ (the upstream's contract) imports only sources/;
 *    - src/environment.ts imports nothing of ours: the vocabulary config and the pipeline share;
 *    - src/config/ imports only src/config/ and src/environment.ts: the configuration is read
 *      and validated before any part of the pipeline exists;
 *    - src/errors/'s codes and helpers (every file there but its use-*.ts plugins) import only
 *      src/errors/ and src/errors/json-response.ts (a leaf: the headers of every JSON answer):
 *      every layer builds its client-facing errors with them;
 *    - nothing imports the entry points src/main.ts, emulator/main.ts and .meshrc.ts.
 * `npx tsx scripts/import-graph.ts` prints the circles of the whole graph, `--dot` the folders.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { elementaryCycles, formatCycle, tangledComponents } from '../../scripts/graph-cycles';
import { edgesWithin, isUnder, listSourceFiles, readSourceGraph, ROOT, type ImportEdge } from '../../scripts/source-graph';

const MAX_LINES = 300;
const CYCLE_SCOPE = ['src', 'additional-resolvers', '.meshrc.ts'];
const SIZE_SCOPE = ['.meshrc.ts', 'src', 'additional-resolvers', 'emulator', 'scripts', 'bench'];
const CODE_FILES = /\.[cm]?[jt]sx?$/;
const TEST_FILES = /\.(test|spec)\.[cm]?[jt]sx?$/;

const graph = readSourceGraph();

function under(...prefixes: string[]): (file: string) => boolean {
  return (file) => prefixes.some((prefix) => isUnder(file, prefix));
}

function not(predicate: (file: string) => boolean): (file: string) => boolean {
  return (file) => !predicate(file);
}

interface DirectionRule {
  readonly rule: string;
  readonly from: (file: string) => boolean;
  readonly forbidden: (target: string) => boolean;
}

const isErrorHelper = (file: string): boolean => isUnder(file, 'src/errors') && !path.posix.basename(file).startsWith('use-');

const DIRECTION_RULES: readonly DirectionRule[] = [
  {
    rule: 'src/ imports nothing from test/, scripts/, bench/, additional-resolvers/ or .meshrc.ts',
    from: under('src'),
    forbidden: under('test', 'scripts', 'bench', 'additional-resolvers', '.meshrc.ts'),
  },
  {
    rule: 'only test/ imports test/ (bench/ and scripts/ may use the launcher)',
    from: not(under('test')),
    forbidden: (file: string) => under('test')(file) && !under('test/support/launcher.ts')(file),
  },
  { rule: 'emulator/ imports only emulator/ and sources/', from: under('emulator'), forbidden: not(under('emulator', 'sources')) },
  { rule: 'sources/ imports only sources/', from: under('sources'), forbidden: not(under('sources')) },
  { rule: 'src/environment.ts imports nothing of ours', from: under('src/environment.ts'), forbidden: () => true },
  {
    rule: 'src/config/ imports only src/config/ and src/environment.ts',
    from: under('src/config'),
    forbidden: not(under('src/config', 'src/environment.ts')),
  },
  {
    rule: "src/errors/'s codes and helpers import only src/errors/ and the JSON answer's headers",
    from: isErrorHelper,
    forbidden: not(under('src/errors', 'src/errors/json-response.ts')),
  },
  { rule: 'nothing imports src/main.ts, emulator/main.ts or .meshrc.ts', from: () => true, forbidden: under('src/main.ts', 'emulator/main.ts', '.meshrc.ts') },
];

function describeEdge(edge: ImportEdge): string {
  return `${edge.from}:${edge.line} -> ${edge.to}${edge.typeOnly ? ' (type-only)' : ''}`;
}

function lineCount(file: string): number {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

describe('the import graph', () => {
  it('sees the whole layout', () => {
    // A rule over an empty or half-read graph passes whatever the code does.
    for (const folder of ['src/config', 'src/errors', 'src/gateway', 'additional-resolvers', 'emulator', 'sources', 'test']) {
      expect(graph.edges.some((e) => isUnder(e.from, folder)), `no import read from ${folder}/`).toBe(true);
    }
    expect(graph.files).toContain('.meshrc.ts');
  });

  it('resolves every relative import to a file', () => {
    expect(graph.unresolved.map((u) => `${u.from}:${u.line} '${u.specifier}'`)).toEqual([]);
  });

  it('has no circle among src/, additional-resolvers/ and .meshrc.ts, type-only imports included', () => {
    const edges = edgesWithin(graph, CYCLE_SCOPE);
    const files = [...new Set(edges.flatMap((e) => [e.from, e.to]))];
    const tangled = tangledComponents(files, edges).map((component) => component.join(', '));
    const cycles = elementaryCycles(files, edges).map(formatCycle);
    expect({ tangled, cycles }).toEqual({ tangled: [], cycles: [] });
  });
});

describe('the size rule', () => {
  it(`keeps every source file in ${SIZE_SCOPE.join(', ')} at ${MAX_LINES} lines or fewer`, () => {
    const files = listSourceFiles(ROOT, SIZE_SCOPE, CODE_FILES).filter((file) => !TEST_FILES.test(file));
    expect(files.length).toBeGreaterThan(50);
    const oversized = files.map((file) => ({ file, lines: lineCount(file) })).filter(({ lines }) => lines > MAX_LINES);
    expect(oversized.map(({ file, lines }) => `${file}: ${lines} lines`)).toEqual([]);
  });
});

describe('the dependency direction', () => {
  for (const { rule, from, forbidden } of DIRECTION_RULES) {
    it(rule, () => {
      expect(graph.files.filter(from).length, 'the rule applies to no file').toBeGreaterThan(0);
      const violations = graph.edges.filter((e) => from(e.from) && forbidden(e.to));
      expect(violations.map(describeEdge)).toEqual([]);
    });
  }
});
