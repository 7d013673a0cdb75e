/**
 * The bench's report: the table of rows, the goals and the results file. The goals are data (what
 * each measures, and the threshold it must meet), evaluated against the rows of the run; a goal
 * whose rows were not measured (BENCH_ONLY) shows as not measured, neither pass nor fail.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../test/support/launcher';
import type { Row, Rows } from './rows';
import { ALL_SCENARIOS, type Settings } from './settings';

export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

/** A row of the run: its scenario, emulator latency and key. */
interface RowRef {
  readonly scenario: string;
  readonly latencyMs: number;
  readonly key: string;
}

/** What a goal compares; each measure reads two rows, except the run's duration. */
export type Measure =
  /** The subject's req/s over the baseline's. */
  | { readonly kind: 'throughput-ratio'; readonly subject: RowRef; readonly baseline: RowRef }
  /** The subject's p50 minus the baseline's, in ms. */
  | { readonly kind: 'added-p50'; readonly subject: RowRef; readonly baseline: RowRef }
  /** The baseline's p50 over the subject's: how many times faster the subject is. */
  | { readonly kind: 'p50-speedup'; readonly subject: RowRef; readonly baseline: RowRef }
  /** PDF bytes per request the subject fetched from the upstream (the baseline's shown beside). */
  | { readonly kind: 'upstream-pdf-bytes'; readonly subject: RowRef; readonly baseline: RowRef }
  /** The subject's req/s. */
  | { readonly kind: 'throughput'; readonly subject: RowRef }
  /** The whole run, in minutes. */
  | { readonly kind: 'run-minutes' };

export interface Goal {
  readonly name: string;
  readonly measure: Measure;
  readonly threshold: { readonly atLeast: number } | { readonly below: number } | { readonly equals: number };
}

/** A goal against one run, as printed and written to the results file. */
export interface GoalResult {
  readonly goal: string;
  readonly measured: string;
  readonly pass: boolean | undefined;
}

const ref = (scenario: string, latencyMs: number, key: string): RowRef => ({ scenario, latencyMs, key });

export function benchGoals(settings: Settings): Goal[] {
  const goals: Goal[] = [];
  const ratio = (name: string, subject: RowRef, baselineKey: string, atLeast: number) =>
    goals.push({ name, measure: { kind: 'throughput-ratio', subject, baseline: { ...subject, key: baselineKey } }, threshold: { atLeast } });
  for (const latencyMs of settings.latenciesMs) {
    for (const [scenario, key, what] of [
      ['1 secretGreeting', 'gateway', 'secretGreeting'],
      ['1 secretGreeting', 'gateway-trusted', 'secretGreeting (trusted document)'],
      ['2 getStatements(50)', 'gateway-uncached', 'getStatements(50) uncached'],
    ] as const) {
      ratio(`${what} @${latencyMs} ms: gateway >= 0.5x raw proxy`, ref(scenario, latencyMs, key), 'raw', 0.5);
      ratio(`${what} @${latencyMs} ms: gateway >= 1.0x Hive Gateway`, ref(scenario, latencyMs, key), 'hive', 1.0);
    }
  }
  const added = (name: string, scenario: string, key: string, directKey: string) =>
    goals.push({ name, measure: { kind: 'added-p50', subject: ref(scenario, 50, key), baseline: ref(scenario, 50, directKey) }, threshold: { below: 2 } });
  added('secretGreeting @50 ms, one connection: p50 added by the gateway < 2 ms', '1 secretGreeting', 'gateway-seq', 'emulator-seq');
  added('getStatements(50) uncached @50 ms, one connection: p50 added < 2 ms', '2 getStatements(50)', 'gateway-seq', 'emulator-seq');
  for (const latencyMs of settings.latenciesMs) {
    ratio(`statementDefinitions hit @${latencyMs} ms: gateway >= 0.5x raw Redis GET`, ref('3 statementDefinitions hit', latencyMs, 'gateway'), 'redis', 0.5);
  }
  // Performance II (issue 33), at 0 ms and 16 connections unless said otherwise.
  ratio('II: secretGreeting (trusted document) @0 ms >= 1.5x Hive Gateway', ref('1 secretGreeting', 0, 'gateway-trusted'), 'hive', 1.5);
  ratio('II: secretGreeting (trusted document) @0 ms >= 0.7x raw proxy', ref('1 secretGreeting', 0, 'gateway-trusted'), 'raw', 0.7);
  ratio('II: secretGreeting (query text) @0 ms >= 1.3x Hive Gateway', ref('1 secretGreeting', 0, 'gateway'), 'hive', 1.3);
  ratio('II: getStatements(50) uncached @0 ms >= 1.2x Hive Gateway', ref('2 getStatements(50)', 0, 'gateway-uncached'), 'hive', 1.2);
  ratio('II: statementDefinitions hit @0 ms >= 0.9x raw Redis GET', ref('3 statementDefinitions hit', 0, 'gateway'), 'redis', 0.9);
  for (const [scenario, what] of [['1 secretGreeting', 'secretGreeting'], ['2 getStatements(50)', 'getStatements(50) uncached']] as const) {
    goals.push({ name: `II: ${what} @50 ms, one connection: p50 added < 1.5 ms`, measure: { kind: 'added-p50', subject: ref(scenario, 50, 'gateway-seq'), baseline: ref(scenario, 50, 'emulator-seq') }, threshold: { below: 1.5 } });
  }
  // Performance III (issue 44): no queue behind one identity: BENCH_CONNECTIONS connections of one
  // browser session or one service account at 50 ms, over the emulator direct on as many connections.
  for (const [scenario, key, what] of [['1 secretGreeting', 'gateway', 'secretGreeting'], ['2 getStatements(50)', 'gateway-uncached', 'getStatements(50) uncached'], ['2 getStatements(50)', 'gateway-service-account', 'getStatements(50) uncached, service account']] as const) {
    added(`III: ${what} @50 ms, ${settings.connections} connections of one identity: p50 added < 2 ms`, scenario, key, 'emulator');
  }
  goals.push({ name: 'II: logins @0 ms >= 1,000/s', measure: { kind: 'throughput', subject: ref('5 login (sessions/s)', 0, 'gateway') }, threshold: { atLeast: 1_000 } });
  const pdf = (key: string) => ref('4 getStatements(20)+pdf', 50, key);
  goals.push({ name: 'PDF read @50 ms: warm >= 10x faster than cold (p50, sequential)', measure: { kind: 'p50-speedup', subject: pdf('warm-seq'), baseline: pdf('cold') }, threshold: { atLeast: 10 } });
  goals.push({ name: 'II: PDF read @50 ms: warm >= 5x faster than cold (p50, sequential)', measure: { kind: 'p50-speedup', subject: pdf('warm-seq'), baseline: pdf('cold') }, threshold: { atLeast: 5 } });
  goals.push({ name: 'PDF read @50 ms: warm transfers no PDF bytes from upstream', measure: { kind: 'upstream-pdf-bytes', subject: pdf('warm-seq'), baseline: pdf('cold') }, threshold: { equals: 0 } });
  goals.push({ name: '`npm run bench` finishes in under 10 minutes', measure: { kind: 'run-minutes' }, threshold: { below: 10 } });
  return goals;
}

/** A measure's value and how it is shown, or undefined when its rows were not measured. */
function measure(m: Measure, rows: Rows, totalSeconds: number): { value: number; text: string } | undefined {
  if (m.kind === 'run-minutes') return { value: totalSeconds / 60, text: `${(totalSeconds / 60).toFixed(1)} min` };
  const find = (r: RowRef): Row | undefined => rows.find(r.scenario, r.latencyMs, r.key);
  if (m.kind === 'throughput') {
    const subject = find(m.subject);
    return subject && { value: subject.requestsPerSecond, text: `${subject.requestsPerSecond.toFixed(0)} req/s` };
  }
  const subject = find(m.subject);
  const base = find(m.baseline);
  if (!subject || !base) return undefined;
  switch (m.kind) {
    case 'throughput-ratio': {
      const value = subject.requestsPerSecond / base.requestsPerSecond;
      return { value, text: `${value.toFixed(2)}x (${subject.requestsPerSecond.toFixed(0)} vs ${base.requestsPerSecond.toFixed(0)} req/s)` };
    }
    case 'added-p50': {
      const value = subject.p50Ms - base.p50Ms;
      return { value, text: `${value.toFixed(2)} ms (${subject.p50Ms.toFixed(2)} vs ${base.p50Ms.toFixed(2)} ms direct)` };
    }
    case 'p50-speedup': {
      const value = base.p50Ms / subject.p50Ms;
      return { value, text: `${value.toFixed(2)}x (${base.p50Ms.toFixed(1)} vs ${subject.p50Ms.toFixed(1)} ms)` };
    }
    case 'upstream-pdf-bytes': {
      const value = subject.upstream?.pdfBytesPerRequest;
      if (value === undefined) return undefined;
      return { value, text: `${Math.round(value)} PDF bytes/request (cold: ${Math.round(base.upstream?.pdfBytesPerRequest ?? Number.NaN)})` };
    }
  }
}

export function evaluateGoals(goals: readonly Goal[], rows: Rows, totalSeconds: number): GoalResult[] {
  return goals.map(({ name, measure: m, threshold }) => {
    const result = measure(m, rows, totalSeconds);
    if (!result) return { goal: name, measured: 'not measured', pass: undefined };
    const pass = 'atLeast' in threshold ? result.value >= threshold.atLeast : 'below' in threshold ? result.value < threshold.below : result.value === threshold.equals;
    return { goal: name, measured: result.text, pass };
  });
}

function formatTable(header: readonly string[], body: readonly (readonly string[])[], rightAligned: ReadonlySet<number>): string {
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((line) => (line[i] ?? '').length)));
  const render = (line: readonly string[]) =>
    line.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [render(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(render)].join('\n');
}

const fixed = (value: number | undefined, digits: number) => (value === undefined || !Number.isFinite(value) ? '' : value.toFixed(digits));

function resultsTable(rows: readonly Row[]): string {
  const header = ['scenario', 'latency', 'target', 'conn', 'req/s', 'p50 ms', 'p99 ms', 'ratio', 'baseline', 'RSS MiB', 'cpu ms/req', 'failed', 'upstream/req: calls, bytes (pdf bytes)', 'note'];
  const body = rows.map((r) => [
    r.scenario,
    `${r.latencyMs} ms`,
    r.target,
    String(r.connections),
    fixed(r.requestsPerSecond, 0),
    fixed(r.p50Ms, 2),
    fixed(r.p99Ms, 2),
    r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`,
    r.baseline ?? '',
    fixed(r.rssMiB, 0),
    fixed(r.cpuMsPerRequest, 2),
    String(r.failed),
    r.upstream ? `${r.upstream.callsPerRequest.toFixed(2)}, ${Math.round(r.upstream.bytesPerRequest)} (${Math.round(r.upstream.pdfBytesPerRequest)})` : '',
    r.note ?? '',
  ]);
  return formatTable(header, body, new Set([3, 4, 5, 6, 7, 9, 10, 11]));
}

export interface Run {
  readonly settings: Settings;
  readonly startedAt: Date;
  readonly totalSeconds: number;
  readonly rows: Rows;
  readonly goals: readonly GoalResult[];
}

/** The table and the goals, on stdout. */
export function printReport(run: Run): void {
  const { settings } = run;
  console.log(`\nnpm run bench: ${settings.seconds} s per run, ${settings.connections} connections (sequential rows: 1), Node ${process.version}, ${os.cpus().length} CPUs, ${run.startedAt.toISOString()}`);
  console.log('ratio: req/s over the row named in "baseline". RSS: the row\'s target process, max during the run; cpu ms/req: its CPU time per answer.\n');
  console.log(resultsTable(run.rows.list));
  console.log('\ngoals');
  console.log(formatTable(['goal', 'measured', 'result'], run.goals.map((g) => [g.goal, g.measured, g.pass === undefined ? '?' : g.pass ? 'pass' : 'FAIL']), new Set()));
  console.log(`\ntotal: ${run.totalSeconds.toFixed(0)} s`);
}

/** bench/results/<time>.json, and bench/results/latest.json after a run of every scenario. */
export function writeResults(run: Run): void {
  const { settings } = run;
  mkdirSync(RESULTS_DIR, { recursive: true });
  const results = {
    startedAt: run.startedAt.toISOString(),
    totalSeconds: run.totalSeconds,
    settings: { seconds: settings.seconds, warmupSeconds: settings.warmupSeconds, connections: settings.connections, pdfPages: settings.pdfPages, latenciesMs: settings.latenciesMs },
    machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '', memoryMiB: Math.round(os.totalmem() / 2 ** 20) },
    rows: run.rows.list.map(({ key: _key, ...rest }) => rest),
    goals: run.goals,
  };
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const file = path.join(RESULTS_DIR, `${run.startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, text);
  // latest.json is the last complete run only.
  const complete = ALL_SCENARIOS.every((scenario) => settings.only.has(scenario));
  if (complete) writeFileSync(path.join(RESULTS_DIR, 'latest.json'), text);
  console.log(`results: ${path.relative(ROOT, file)}${complete ? ' and bench/results/latest.json' : ''}`);
}
