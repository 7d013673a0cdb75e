/**
 * Prints the circles in the import graph, so a change that ties two modules together in both
 * directions is seen when it is made rather than when a module is undefined at start-up:
 *
 *   npx tsx scripts/import-graph.ts [--repo DIR] [--dot] [PATH ...]
 *
 * PATHs (files or folders) restrict the graph to imports between files under them (default: all
 * of the code, tests included). Exits 1 when there is a circle or a relative import that does
 * not resolve. `--dot` prints instead a Graphviz graph of the dependencies between src/'s
 * folders (and its top-level files), dashed where every import behind an arrow is type-only:
 * `npx tsx scripts/import-graph.ts --dot | dot -Tsvg > layout.svg`. `--repo` reads another
 * checkout, such as an older commit's worktree. test/architecture/imports.unit.test.ts asserts the
 * same and the layout's direction rules.
 */
import path from 'node:path';
import { elementaryCycles, formatCycle, tangledComponents } from './graph-cycles';
import { edgesWithin, readSourceGraph, ROOT, type ImportEdge, type SourceGraph } from './source-graph';

/** `src/cache/x.ts` -> `src/cache`; `src/gateway/server.ts` stays itself. */
export function srcUnit(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] !== 'src' || parts.length < 2) return undefined;
  return parts.length > 2 ? `src/${parts[1]}` : file;
}

export function folderDot(edges: readonly ImportEdge[]): string {
  const arrows = new Map<string, { count: number; runtime: boolean }>();
  const units = new Set<string>();
  for (const edge of edges) {
    const from = srcUnit(edge.from);
    const to = srcUnit(edge.to);
    if (from === undefined || to === undefined) continue;
    units.add(from).add(to);
    if (from === to) continue;
    const key = JSON.stringify([from, to]);
    const arrow = arrows.get(key) ?? { count: 0, runtime: false };
    arrows.set(key, { count: arrow.count + 1, runtime: arrow.runtime || !edge.typeOnly });
  }
  const lines = ['digraph src {', '  rankdir=LR;', '  node [shape=box, fontname="Helvetica"];'];
  for (const unit of [...units].sort()) lines.push(`  "${unit}" [label="${unit.slice('src/'.length)}"${unit.endsWith('.ts') ? ', shape=note' : ''}];`);
  for (const [key, { count, runtime }] of [...arrows].sort(([a], [b]) => a.localeCompare(b))) {
    const [from, to] = JSON.parse(key) as [string, string];
    lines.push(`  "${from}" -> "${to}" [label="${count}"${runtime ? '' : ', style=dashed'}];`);
  }
  lines.push('}');
  return lines.join('\n');
}

function describeCycle(cycle: readonly string[], edges: readonly ImportEdge[]): string {
  const typeOnly: string[] = [];
  for (let i = 0; i + 1 < cycle.length; i++) {
    const between = edges.filter((e) => e.from === cycle[i] && e.to === cycle[i + 1]);
    if (between.every((e) => e.typeOnly)) typeOnly.push(`${cycle[i]} -> ${cycle[i + 1]}`);
  }
  return typeOnly.length === 0 ? formatCycle(cycle) : `${formatCycle(cycle)}\n      type-only: ${typeOnly.join(', ')}`;
}

/** The report printed without --dot; returns whether the graph is clean. */
export function cycleReport(graph: SourceGraph, edges: readonly ImportEdge[], write: (line: string) => void): boolean {
  const files = [...new Set(edges.flatMap((e) => [e.from, e.to]))];
  const components = tangledComponents(files, edges);
  const cycles = elementaryCycles(files, edges);
  write(`${graph.files.length} files, ${edges.length} imports between them (${edges.filter((e) => e.typeOnly).length} type-only)`);
  for (const miss of graph.unresolved) write(`unresolved: ${miss.from}:${miss.line} '${miss.specifier}'`);
  if (components.length === 0) {
    write('no import cycles');
    return graph.unresolved.length === 0;
  }
  write(`${components.length} tangled group(s) of files:`);
  for (const component of components) write(`  ${component.join(', ')}`);
  write(`${cycles.length} cycle(s)${cycles.length >= 100 ? ' (listing stopped at 100)' : ''}:`);
  for (const cycle of cycles) write(`  ${describeCycle(cycle, edges)}`);
  return false;
}

function main(argv: readonly string[]): number {
  let root = ROOT;
  let dot = false;
  const scope: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--dot') dot = true;
    else if (arg === '--repo') root = path.resolve(argv[++i] ?? '.');
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg} (usage: import-graph.ts [--repo DIR] [--dot] [PATH ...])`);
    else scope.push(arg.replace(/\/+$/, ''));
  }
  const graph = scope.length > 0 ? readSourceGraph(root, scope) : readSourceGraph(root);
  const edges = scope.length > 0 ? edgesWithin(graph, scope) : graph.edges;
  if (dot) {
    process.stdout.write(`${folderDot(edges)}\n`);
    return 0;
  }
  return cycleReport(graph, edges, (line) => process.stdout.write(`${line}\n`)) ? 0 : 1;
}

if (path.resolve(process.argv[1] ?? '') === __filename) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  }
}
