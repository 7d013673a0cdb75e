/**
 * `npm run bench`: the benchmark table. One command starts everything itself on 127.0.0.1, each in
 * a process of its own (so that the load generator in this process shares no event loop with a
 * target): the emulator (sandbox and production), a raw undici proxy (scripts/bench-proxy.ts),
 * Hive Gateway in proxy mode (scripts/bench-hive.config.ts), a byte-counting proxy in front of the
 * production emulator, our gateway (`node --import tsx src/main.ts`, Redis DB 14) and a raw
 * Redis-GET server (scripts/bench-redis-server.ts). Then it runs each scenario at emulator
 * latency 0 ms and 50 ms, prints one table and the goals, and writes bench/results/<time>.json and
 * bench/results/latest.json (bench/results/ is git-ignored).
 *
 * Scenarios (autocannon's programmatic API, BENCH_SECONDS (10) per run after a warm-up run of 1 s
 * that is not counted, BENCH_CONNECTIONS (16) connections; latency percentiles are computed here
 * from autocannon's per-response times, which have sub-millisecond resolution, unlike its own 1 ms
 * histogram; RSS is the row's target process's maximum during the run, CPU its CPU time per answer):
 * 1. `secretGreeting` pass-through: the emulator directly, the raw proxy, Hive Gateway (these three
 *    with the upstream's credential headers) and our gateway (a cookie session); then the same four
 *    with one connection (at most 100 requests), for the latency a request adds without queueing.
 *    Note: Hive Gateway and our gateway both merge identical in-flight upstream queries (the HTTP
 *    executor of @graphql-tools, on by default), so under this load of identical requests they
 *    make fewer upstream calls than they answer; the raw proxy forwards every one.
 * 2. `getStatements(first: 50)` without `pdf`, the same four targets. Our gateway answers repeated
 *    reads from its read cache, so it is measured twice: as is ("read cache"), and with an unused
 *    variable unique to each request ("uncached"), which changes the read cache's key (it hashes
 *    the variables) and so makes every request a miss: the pass-through cost of a read. One
 *    connection too, for the emulator and our gateway uncached.
 * 3. `statementDefinitions` cache hit on our gateway, against the raw Redis-GET server serving
 *    the same bytes. The gateway's own Redis entry is `<time>\n<full payload JSON>`, not an HTTP
 *    answer, so the bench stores the gateway's exact answer to the same query under
 *    `bench:definitions-answer` in DB 14 and the raw server GETs that.
 * 4. `getStatements(otxIds: <20 ids>)` selecting `pdf`, through the counting proxy (our gateway's
 *    PRODUCTION upstream is that proxy, so only this scenario pays its hop). Cold: a sequential
 *    loop (at most BENCH_PDF_PAGES requests and BENCH_SECONDS) where each request reads 20
 *    statements the gateway has never read, so none of their PDFs can be cached; nothing in the
 *    gateway's cache is touched. Warm: one priming read of a fixed page, then the same sequential
 *    loop on it (the cold/warm latency comparison), then autocannon on it for throughput. Upstream
 *    bytes and PDF bytes per request are counted by the proxy.
 * 5. Login throughput: `login` mutations (each one creates a session) on our gateway, its login
 *    rate limits lifted by the environment; the baseline is the emulator's own sign-in.
 *
 * BENCH_SECONDS=2 gives a smoke run; BENCH_ONLY=1,3 runs only those scenarios; BENCH_PDF_PAGES
 * (40) bounds the cold PDF reads; BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the gateway.
 * Every load is bounded in time and count and only touches 127.0.0.1; every child process is
 * stopped at the end, on an error and on SIGINT/SIGTERM. Redis DB 14 is flushed before and after
 * the run (BENCH_REDIS_URL overrides the URL: a loopback Redis, and a database other than 0 and 9,
 * which the tests use).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon, { type AutocannonOptions, type AutocannonRequest, type Instance } from 'autocannon';
import { Redis } from 'ioredis';
import { ensureMesh } from './ensure-mesh';

const ROOT = path.resolve(__dirname, '..');
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

function positive(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(text)}`);
  return value;
}

const SECONDS = positive('BENCH_SECONDS', 10);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 16));
const WARMUP_SECONDS = Math.min(1, SECONDS / 2);
/** Cold PDF reads per latency at most (each one needs 20 fresh statements). */
const PDF_PAGES = Math.round(positive('BENCH_PDF_PAGES', 40));
const LATENCIES = [0, 50] as const;
/** Requests of each sequential latency loop of scenario 1 (at most BENCH_SECONDS too). */
const SEQUENTIAL_COUNT = 100;
/** BENCH_ONLY=1,4 runs only those scenarios (for a quick look; the goals then show gaps). */
const ONLY = new Set((process.env.BENCH_ONLY ?? '1,2,3,4,5').split(',').map((part) => Number(part.trim())));
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14';
const PASSWORD = 'a-long-enough-password-123';
const DEFINITIONS_KEY = 'bench:definitions-answer';
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

const USERS = {
  pass: 'bench-pass@example.com',
  login: 'bench-login@example.com',
  pdf: 'bench-pdf@example.com',
} as const;

const QUERIES = {
  greeting: '{ secretGreeting { response errors } }',
  statements:
    'query Statements { getStatements(first: 50) { statements { nodes { otxId uploaderId formType recipientFirstName recipientLastName recipientCity senderName status statusDescription taxYear } } errors } }',
  definitions:
    '{ statementDefinitions { definitions { identifier name title description recipientName senderName fields { identifier dataType boxLabel boxNumber description frequentUse sortOrder yearsUsed } } errors } }',
  pdfs: 'query Pdfs($ids: [String!]) { getStatements(otxIds: $ids) { statements { nodes { otxId uploaderId pdf } } errors } }',
  login: 'mutation Login($e: String!, $p: String!, $env: Environment) { login(email: $e, password: $p, environment: $env) { uid } }',
} as const;

// ---------------------------------------------------------------------------------------------
// Child processes

interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number;
}

const children: Child[] = [];
let currentLoad: Instance | undefined;

function loopbackOnly(url: string): string {
  const { hostname } = new URL(url);
  if (hostname !== '127.0.0.1') throw new Error(`refusing a non-loopback target: ${url}`);
  return url;
}

function prefixLines(name: string, sink: NodeJS.WriteStream) {
  let rest = '';
  return (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) sink.write(`[${name}] ${line}\n`);
  };
}

interface StartOptions {
  readonly name: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /** Where the ready line appears, and its pattern (group 1: the URL). */
  readonly ready?: { readonly stream: 'stdout' | 'stderr'; readonly pattern: RegExp };
  /** Pass these streams on (prefixed); the ready stream's output up to the ready line is kept for an error message only. */
  readonly echo: readonly ('stdout' | 'stderr')[];
  readonly timeoutMs?: number;
}

/** Starts a Node program; resolves with its URL once its ready line appears. */
function startChild(options: StartOptions): Promise<{ child: Child; url?: string }> {
  const proc = spawn(process.execPath, options.args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'production', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (proc.pid === undefined) throw new Error(`${options.name} did not start`);
  const child: Child = { name: options.name, process: proc, pid: proc.pid };
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.name} was not ready within ${options.timeoutMs ?? 60_000} ms`)), options.timeoutMs ?? 60_000);
    let found = !options.ready;
    let seen = '';
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!found) reject(new Error(`${options.name} exited before it was ready (${signal ?? code ?? '?'}): ${seen.slice(-500)}`));
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      const echo = options.echo.includes(stream) ? prefixLines(options.name, process.stderr) : undefined;
      proc[stream].setEncoding('utf8').on('data', (chunk: string) => {
        if (!found && options.ready?.stream === stream) {
          seen += chunk;
          const match = options.ready.pattern.exec(seen);
          if (match) {
            found = true;
            clearTimeout(timer);
            resolve({ child, url: match[1] });
          }
          return;
        }
        echo?.(chunk);
      });
    }
    if (found) {
      clearTimeout(timer);
      resolve({ child });
    }
  });
}

function alive(child: Child): boolean {
  return child.process.exitCode === null && child.process.signalCode === null;
}

function stop(child: Child): Promise<void> {
  if (!alive(child)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => {
      if (alive(child)) child.process.kill('SIGKILL');
    }, 3_000);
    child.process.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.process.kill('SIGTERM');
  });
}

/** The emulators last, so that nothing still calling them logs refused connections. */
async function stopChildren(): Promise<void> {
  const emulator = (child: Child) => child.name.startsWith('emulator-');
  await Promise.all(children.filter((child) => !emulator(child)).map(stop));
  await Promise.all(children.filter(emulator).map(stop));
}

process.once('exit', () => {
  for (const child of children) if (alive(child)) child.process.kill('SIGKILL');
});

/** A free loopback port, for Hive Gateway (whose CLI does not report a port chosen by the OS). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// HTTP helpers (setup and sequential loops)

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(loopbackOnly(url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
}

async function control(emulator: string, method: string, route: string, body?: unknown): Promise<unknown> {
  const response = await fetch(loopbackOnly(`${emulator}/__emulator/${route}`), {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`emulator ${method} ${route}: ${response.status} ${await response.text()}`);
  return response.json();
}

type Credential = Record<'access-token' | 'client' | 'uid', string>;

async function upstreamSignIn(emulator: string, email: string): Promise<Credential> {
  const response = await postJson(`${emulator}/v2/auth/sign_in`, { email, password: PASSWORD });
  const header = (name: string) => response.headers.get(name) ?? '';
  if (!response.ok || !header('access-token')) throw new Error(`upstream sign-in of ${email}: ${response.status}`);
  return { 'access-token': header('access-token'), client: header('client'), uid: header('uid') };
}

async function gatewayLogin(gateway: string, email: string, environment: 'SANDBOX' | 'PRODUCTION'): Promise<string> {
  const response = await postJson(`${gateway}/graphql`, { query: QUERIES.login, variables: { e: email, p: PASSWORD, env: environment } }, { 'x-csrf': '1' });
  const cookie = response.headers.getSetCookie()[0]?.split(';')[0];
  const text = await response.text();
  if (!response.ok || !cookie) throw new Error(`gateway login of ${email}: ${response.status} ${text.slice(0, 300)}`);
  return cookie;
}

/** A GraphQL answer without a transport error and without the payload's own errors. */
function cleanAnswer(body: string): boolean {
  return body.startsWith('{"data":{') && !body.includes('"errors":[{') && !body.includes('"errors":["');
}

// ---------------------------------------------------------------------------------------------
// Measurements

interface ProcessSample {
  rssMaxMiB: number;
  cpuTicks: number;
}

function procStatus(pid: number): { rssMiB: number; cpuTicks: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  // /proc/<pid>/stat: the command (field 2) is in parentheses and may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 (utime, stime) are at 11 and 12 after the command.
  const cpuTicks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return { rssMiB: rss ? Number(rss) / 1024 : Number.NaN, cpuTicks };
}

/** Samples a process's RSS (its maximum) and CPU time while `work` runs. */
async function watched<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; sample: ProcessSample; elapsedS: number }> {
  const start = procStatus(pid);
  let rssMaxMiB = start.rssMiB;
  const timer = setInterval(() => {
    rssMaxMiB = Math.max(rssMaxMiB, procStatus(pid).rssMiB);
  }, 200);
  const began = performance.now();
  try {
    const value = await work();
    const elapsedS = (performance.now() - began) / 1000;
    const end = procStatus(pid);
    return { value, sample: { rssMaxMiB: Math.max(rssMaxMiB, end.rssMiB), cpuTicks: end.cpuTicks - start.cpuTicks }, elapsedS };
  } finally {
    clearInterval(timer);
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

interface Measured {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly ok: number;
  readonly failed: number;
  readonly rssMiB: number;
  readonly cpuMsPerRequest: number;
  readonly connections: number;
  readonly seconds: number;
}

interface LoadSpec {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body: string;
  /** A different body per request (the n-th request of the run). */
  readonly bodyFor?: (n: number) => string;
  readonly verify?: (body: string) => boolean;
}

/** One request first: a misconfigured target fails the bench loudly instead of measuring errors. */
async function probe(spec: LoadSpec): Promise<void> {
  const response = await fetch(loopbackOnly(spec.url), {
    method: spec.method ?? 'POST',
    headers: spec.headers,
    body: spec.bodyFor ? spec.bodyFor(-1) : spec.body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok || !(spec.verify ?? cleanAnswer)(text)) throw new Error(`probe of ${spec.url} failed: ${response.status} ${text.slice(0, 300)}`);
}

async function load(pid: number, spec: LoadSpec, beforeMain?: () => Promise<unknown>): Promise<Measured> {
  await probe(spec);
  // One counter over the warm-up and the measured run: `bodyFor` never repeats a body.
  let counter = 0;
  const bodyFor = spec.bodyFor;
  const requests: AutocannonRequest[] | undefined = bodyFor ? [{ setupRequest: (request) => ({ ...request, body: bodyFor(counter++) }) }] : undefined;
  const options = (duration: number): AutocannonOptions => ({
    url: loopbackOnly(spec.url),
    method: spec.method ?? 'POST',
    headers: spec.headers,
    body: spec.body,
    connections: CONNECTIONS,
    duration,
    timeout: 10,
    verifyBody: spec.verify ?? cleanAnswer,
    ...(requests ? { requests } : {}),
  });
  const run = async (duration: number, latencies?: number[]) => {
    const instance = autocannon(options(duration));
    currentLoad = instance;
    if (latencies) {
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        const status = Number(statusCode);
        if (status >= 200 && status < 300) latencies.push(responseTime);
      });
    }
    try {
      return await instance;
    } finally {
      currentLoad = undefined;
    }
  };
  // The warm-up is a run of its own, outside the RSS, CPU and upstream-byte accounting.
  await run(WARMUP_SECONDS);
  await beforeMain?.();
  const latencies: number[] = [];
  const { value: result, sample } = await watched(pid, () => run(SECONDS, latencies));
  const ok = Math.max(0, result['2xx'] - result.mismatches);
  const failed = result.non2xx + result.errors + result.timeouts + result.mismatches;
  const sorted = Float64Array.from(latencies).sort();
  const served = ok + failed;
  return {
    requestsPerSecond: ok / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ok,
    failed,
    rssMiB: sample.rssMaxMiB,
    cpuMsPerRequest: served > 0 ? ((sample.cpuTicks / CLOCK_TICKS) * 1000) / served : Number.NaN,
    connections: CONNECTIONS,
    seconds: result.duration,
  };
}

/** A bounded sequential loop (one connection): at most `count` requests and `SECONDS`. */
async function sequential(pid: number, count: number, send: (n: number) => Promise<Response>): Promise<Measured> {
  const times: number[] = [];
  await sleep(200); // let the previous load's sockets and timers settle
  let failed = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const { sample, elapsedS } = await watched(pid, async () => {
    for (let n = 0; n < count && performance.now() < deadline; n++) {
      const began = performance.now();
      const response = await send(n);
      const text = await response.text();
      const took = performance.now() - began;
      if (response.ok && cleanAnswer(text)) times.push(took);
      else failed++;
    }
  });
  const sorted = Float64Array.from(times).sort();
  const served = times.length + failed;
  return {
    requestsPerSecond: times.length / elapsedS,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ok: times.length,
    failed,
    rssMiB: sample.rssMaxMiB,
    cpuMsPerRequest: served > 0 ? ((sample.cpuTicks / CLOCK_TICKS) * 1000) / served : Number.NaN,
    connections: 1,
    seconds: elapsedS,
  };
}

// ---------------------------------------------------------------------------------------------
// Results

interface Row extends Measured {
  readonly scenario: string;
  readonly latencyMs: number;
  readonly target: string;
  /** Key of this row among its scenario and latency, for baselines and goals. */
  readonly key: string;
  baseline?: string;
  ratio?: number;
  note?: string;
  upstream?: { readonly bytesPerRequest: number; readonly pdfBytesPerRequest: number; readonly callsPerRequest: number };
}

const rows: Row[] = [];

function row(scenario: string, latencyMs: number, key: string, target: string, measured: Measured, note?: string): Row {
  const entry: Row = { scenario, latencyMs, key, target, ...measured, ...(note ? { note } : {}) };
  rows.push(entry);
  const failed = measured.failed > 0 ? `, ${measured.failed} FAILED` : '';
  console.error(`  ${scenario} @${latencyMs}ms ${target}: ${measured.requestsPerSecond.toFixed(0)} req/s, p50 ${measured.p50Ms.toFixed(2)} ms${failed}`);
  return entry;
}

function find(scenario: string, latencyMs: number, key: string): Row | undefined {
  return rows.find((r) => r.scenario === scenario && r.latencyMs === latencyMs && r.key === key);
}

/** `ratio` = this row's req/s over the baseline row's. */
function relate(scenario: string, latencyMs: number, key: string, baselineKey: string): void {
  const subject = find(scenario, latencyMs, key);
  const base = find(scenario, latencyMs, baselineKey);
  if (!subject || !base) return;
  subject.baseline = base.target;
  subject.ratio = subject.requestsPerSecond / base.requestsPerSecond;
}

function formatTable(header: readonly string[], body: readonly (readonly string[])[], rightAligned: ReadonlySet<number>): string {
  const widths = header.map((title, i) => Math.max(title.length, ...body.map((line) => (line[i] ?? '').length)));
  const render = (line: readonly string[]) =>
    line.map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [render(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(render)].join('\n');
}

const fixed = (value: number | undefined, digits: number) => (value === undefined || !Number.isFinite(value) ? '' : value.toFixed(digits));

function resultsTable(): string {
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

interface Goal {
  readonly goal: string;
  readonly measured: string;
  readonly pass: boolean | undefined;
}

function goals(totalSeconds: number): Goal[] {
  const list: Goal[] = [];
  const ratioGoal = (label: string, scenario: string, latencyMs: number, key: string, baseKey: string, min: number) => {
    const subject = find(scenario, latencyMs, key);
    const base = find(scenario, latencyMs, baseKey);
    if (!subject || !base) return list.push({ goal: label, measured: 'not measured', pass: undefined });
    const ratio = subject.requestsPerSecond / base.requestsPerSecond;
    list.push({ goal: label, measured: `${ratio.toFixed(2)}x (${subject.requestsPerSecond.toFixed(0)} vs ${base.requestsPerSecond.toFixed(0)} req/s)`, pass: ratio >= min });
  };
  for (const latencyMs of LATENCIES) {
    for (const [scenario, key, what] of [
      ['1 secretGreeting', 'gateway', 'secretGreeting'],
      ['2 getStatements(50)', 'gateway-uncached', 'getStatements(50) uncached'],
    ] as const) {
      ratioGoal(`${what} @${latencyMs} ms: gateway >= 0.5x raw proxy`, scenario, latencyMs, key, 'raw', 0.5);
      ratioGoal(`${what} @${latencyMs} ms: gateway >= 1.0x Hive Gateway`, scenario, latencyMs, key, 'hive', 1.0);
    }
  }
  const addedLatency = (label: string, scenario: string, key: string, directKey: string) => {
    const subject = find(scenario, 50, key);
    const direct = find(scenario, 50, directKey);
    const added = subject && direct ? subject.p50Ms - direct.p50Ms : undefined;
    list.push({
      goal: label,
      measured: added === undefined ? 'not measured' : `${added.toFixed(2)} ms (${subject?.p50Ms.toFixed(2)} vs ${direct?.p50Ms.toFixed(2)} ms direct)`,
      pass: added === undefined ? undefined : added < 2,
    });
  };
  addedLatency('secretGreeting @50 ms, one connection: p50 added by the gateway < 2 ms', '1 secretGreeting', 'gateway-seq', 'emulator-seq');
  addedLatency('getStatements(50) uncached @50 ms, one connection: p50 added < 2 ms', '2 getStatements(50)', 'gateway-seq', 'emulator-seq');
  // Under load the direct emulator queues too (and the gateway merges identical requests): shown, not the goal.
  addedLatency(`secretGreeting @50 ms, ${CONNECTIONS} connections: p50 added by the gateway < 2 ms`, '1 secretGreeting', 'gateway', 'emulator');
  addedLatency(`getStatements(50) uncached @50 ms, ${CONNECTIONS} connections: p50 added < 2 ms`, '2 getStatements(50)', 'gateway-uncached', 'emulator');
  for (const latencyMs of LATENCIES) ratioGoal(`statementDefinitions hit @${latencyMs} ms: gateway >= 0.5x raw Redis GET`, '3 statementDefinitions hit', latencyMs, 'gateway', 'redis', 0.5);
  const cold = find('4 getStatements(20)+pdf', 50, 'cold');
  const warm = find('4 getStatements(20)+pdf', 50, 'warm-seq');
  const speedup = cold && warm ? cold.p50Ms / warm.p50Ms : undefined;
  list.push({
    goal: 'PDF read @50 ms: warm >= 10x faster than cold (p50, sequential)',
    measured: speedup === undefined ? 'not measured' : `${speedup.toFixed(2)}x (${cold?.p50Ms.toFixed(1)} vs ${warm?.p50Ms.toFixed(1)} ms)`,
    pass: speedup === undefined ? undefined : speedup >= 10,
  });
  const warmBytes = warm?.upstream?.pdfBytesPerRequest;
  list.push({
    goal: 'PDF read @50 ms: warm transfers no PDF bytes from upstream',
    measured: warmBytes === undefined ? 'not measured' : `${Math.round(warmBytes)} PDF bytes/request (cold: ${Math.round(cold?.upstream?.pdfBytesPerRequest ?? Number.NaN)})`,
    pass: warmBytes === undefined ? undefined : warmBytes === 0,
  });
  list.push({ goal: '`npm run bench` finishes in under 10 minutes', measured: `${(totalSeconds / 60).toFixed(1)} min`, pass: totalSeconds < 600 });
  return list;
}

// ---------------------------------------------------------------------------------------------
// The run

interface Targets {
  readonly sandbox: { url: string; child: Child };
  readonly production: { url: string; child: Child };
  readonly raw: { url: string; child: Child };
  readonly counter: { url: string; child: Child };
  readonly hive: { url: string; child: Child };
  readonly gateway: { url: string; child: Child };
}

async function startEmulator(environment: 'sandbox' | 'production'): Promise<{ url: string; child: Child }> {
  const { child, url } = await startChild({
    name: `emulator-${environment}`,
    args: ['--import', 'tsx', 'emulator/main.ts'],
    env: { EMULATOR_ENVIRONMENT: environment, EMULATOR_PORT: '0', EMULATOR_HOST: '127.0.0.1' },
    ready: { stream: 'stdout', pattern: /listening on (http:\/\/127\.0\.0\.1:\d+)/ },
    echo: ['stderr'],
  });
  return { child, url: loopbackOnly(url ?? '') };
}

async function startProxy(name: string, target: string, count: boolean): Promise<{ url: string; child: Child }> {
  const { child, url } = await startChild({
    name,
    args: ['--import', 'tsx', 'scripts/bench-proxy.ts'],
    env: { BENCH_TARGET: target, ...(count ? { BENCH_COUNT: '1' } : {}) },
    ready: { stream: 'stdout', pattern: /listening (http:\/\/127\.0\.0\.1:\d+)/ },
    echo: ['stderr'],
  });
  return { child, url: loopbackOnly(url ?? '') };
}

async function startHive(upstream: string): Promise<{ url: string; child: Child }> {
  const port = await freePort();
  const { child } = await startChild({
    name: 'hive-gateway',
    args: [path.join(ROOT, 'node_modules/@graphql-hive/gateway/dist/bin.js'), 'proxy', '-c', 'scripts/bench-hive.config.ts', '--host', '127.0.0.1', '--port', String(port)],
    env: { BENCH_HIVE_UPSTREAM: `${upstream}/v2/graphql`, BENCH_HIVE_SCHEMA: path.join(ROOT, 'sources/statement-filing-service/schema.graphql') },
    echo: ['stderr'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthcheck`, 60_000);
  return { child, url };
}

async function startGateway(sandbox: string, production: string): Promise<{ url: string; child: Child }> {
  const { child, url } = await startChild({
    name: 'gateway',
    // Node itself with tsx's loader (not tsx's CLI, which would run the gateway in a child), so that
    // the RSS and CPU time read from /proc are the gateway's own.
    // BENCH_CPU_PROF=<dir>: a V8 CPU profile of the gateway, written there when it stops.
    args: [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : []), '--import', 'tsx', 'src/main.ts'],
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      UPSTREAM_SANDBOX_URL: sandbox,
      UPSTREAM_PRODUCTION_URL: production,
      REDIS_URL,
      CREDENTIAL_KEY: randomBytes(32).toString('base64'),
      RATE_LIMIT_LOGIN: '1000000/1m',
      RATE_LIMIT_LOGIN_ADDRESS: '1000000/1m',
      RATE_LIMIT_LOGIN_ACCOUNT: '1000000/1m',
      RATE_LIMIT_SESSION: '100000000/1m',
      RATE_LIMIT_ANONYMOUS: '100000000/1m',
    },
    ready: { stream: 'stderr', pattern: /Statement gateway on (http:\/\/[^/\s]+)/ },
    echo: ['stdout', 'stderr'],
  });
  return { child, url: loopbackOnly(url ?? '') };
}

async function startRedisServer(): Promise<{ url: string; child: Child }> {
  const { child, url } = await startChild({
    name: 'redis-get-server',
    args: ['--import', 'tsx', 'scripts/bench-redis-server.ts'],
    env: { BENCH_REDIS_URL: REDIS_URL, BENCH_REDIS_KEY: DEFINITIONS_KEY },
    ready: { stream: 'stdout', pattern: /listening (http:\/\/127\.0\.0\.1:\d+)/ },
    echo: ['stderr'],
  });
  return { child, url: loopbackOnly(url ?? '') };
}

async function setLatency(targets: Targets, latencyMs: number): Promise<void> {
  await control(targets.sandbox.url, 'PATCH', 'settings', { latencyMs });
  await control(targets.production.url, 'PATCH', 'settings', { latencyMs });
}

interface Counters {
  responses: number;
  bytes: number;
  pdfBytes: number;
}

async function counters(counter: string, reset: boolean): Promise<Counters> {
  const response = await fetch(`${counter}/__bench/counters`, { method: reset ? 'DELETE' : 'GET', signal: AbortSignal.timeout(5_000) });
  return (await response.json()) as Counters;
}

function cacheRedis(): Redis {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
  const { host, db } = redis.options;
  if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`BENCH_REDIS_URL must be a loopback Redis, got ${host}`);
  // The bench flushes its database: never the default one, nor the tests' DB 9.
  if (db === undefined || db === 0 || db === 9) throw new Error(`BENCH_REDIS_URL must name a database of its own (not 0 or 9), got ${db ?? 'none'}`);
  return redis;
}

async function main(): Promise<void> {
  const started = performance.now();
  const startedAt = new Date();
  await ensureMesh();
  const redis = cacheRedis();
  benchRedis = redis;
  await redis.connect();
  await redis.flushdb();

  console.error(`bench: ${SECONDS} s per run after a ${WARMUP_SECONDS} s warm-up, ${CONNECTIONS} connections, latencies ${LATENCIES.join(' and ')} ms; starting the targets`);
  const [sandbox, production] = await Promise.all([startEmulator('sandbox'), startEmulator('production')]);
  const [raw, counter, hive] = await Promise.all([startProxy('raw-proxy', sandbox.url, false), startProxy('counting-proxy', production.url, true), startHive(sandbox.url)]);
  const gateway = await startGateway(sandbox.url, counter.url);
  const targets: Targets = { sandbox, production, raw, counter, hive, gateway };

  // Accounts and data.
  await control(sandbox.url, 'POST', 'accounts', { email: USERS.pass, password: PASSWORD });
  await control(sandbox.url, 'POST', 'statements', { email: USERS.pass, form: 'F1099nec', count: 50 });
  await control(sandbox.url, 'POST', 'accounts', { email: USERS.login, password: PASSWORD });
  await control(production.url, 'POST', 'accounts', { email: USERS.pdf, password: PASSWORD });
  const pdfStatements = (await control(production.url, 'POST', 'statements', { email: USERS.pdf, form: 'F1099nec', count: 20 * (PDF_PAGES * LATENCIES.length + 1) })) as { otxId: string }[];
  const pages = Array.from({ length: PDF_PAGES * LATENCIES.length + 1 }, (_, i) => pdfStatements.slice(i * 20, i * 20 + 20).map((s) => s.otxId));
  const credential = await upstreamSignIn(sandbox.url, USERS.pass);
  const cookie = await gatewayLogin(gateway.url, USERS.pass, 'SANDBOX');
  const pdfCookie = await gatewayLogin(gateway.url, USERS.pdf, 'PRODUCTION');

  const json = { 'content-type': 'application/json' };
  const upstreamHeaders = { ...json, ...credential };
  const cookieHeaders = { ...json, 'x-csrf': '1', cookie };
  const body = (query: string, variables?: Record<string, unknown>) => JSON.stringify(variables ? { query, variables } : { query });

  // The raw Redis-GET server serves the gateway's exact answer to the definitions query.
  const definitionsAnswer = await (await postJson(`${gateway.url}/graphql`, { query: QUERIES.definitions }, { 'x-csrf': '1', cookie })).text();
  if (!cleanAnswer(definitionsAnswer)) throw new Error(`definitions through the gateway: ${definitionsAnswer.slice(0, 300)}`);
  await redis.set(DEFINITIONS_KEY, definitionsAnswer);
  const redisServer = await startRedisServer();
  console.error(`bench: targets ready after ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const gatewayGraphql = `${gateway.url}/graphql`;
  const onGateway = (spec: Omit<LoadSpec, 'url'>, names: readonly Series[], mark?: () => Promise<unknown>) =>
    countedDuring(gateway.url, names, (markCounters) =>
      load(gateway.child.pid, { ...spec, url: gatewayGraphql }, async () => {
        await mark?.();
        await markCounters();
      }),
    );

  // 1 and 2: pass-through, four targets.
  for (const [scenario, query] of [
    ['1 secretGreeting', QUERIES.greeting],
    ['2 getStatements(50)', QUERIES.statements],
  ] as const) {
    if (!ONLY.has(Number(scenario[0]))) continue;
    for (const latencyMs of LATENCIES) {
      await setLatency(targets, latencyMs);
      const spec = { body: body(query) };
      row(scenario, latencyMs, 'emulator', 'emulator direct', await load(sandbox.child.pid, { ...spec, url: `${sandbox.url}/v2/graphql`, headers: upstreamHeaders }));
      row(scenario, latencyMs, 'raw', 'raw undici proxy', await load(raw.child.pid, { ...spec, url: `${raw.url}/v2/graphql`, headers: upstreamHeaders }));
      row(scenario, latencyMs, 'hive', 'Hive Gateway proxy', await load(hive.child.pid, { ...spec, url: `${hive.url}/graphql`, headers: upstreamHeaders }));
      if (scenario === '2 getStatements(50)') {
        const cached = await onGateway({ ...spec, headers: cookieHeaders }, ['readHit', 'readMiss']);
        row(scenario, latencyMs, 'gateway', 'our gateway (read cache)', cached.measured, cached.note);
        const uncached = await onGateway(
          {
            ...spec,
            headers: cookieHeaders,
            // A variable the document does not declare: GraphQL ignores it, the read cache's key
            // includes it, so every request misses (the readMiss count in the note confirms it).
            bodyFor: (n) => body(query, { bench: `${latencyMs}-${n}` }),
          },
          ['readHit', 'readMiss'],
        );
        row(scenario, latencyMs, 'gateway-uncached', 'our gateway (uncached)', uncached.measured, uncached.note);
      } else {
        row(scenario, latencyMs, 'gateway', 'our gateway', await load(gateway.child.pid, { ...spec, url: gatewayGraphql, headers: cookieHeaders }));
      }
      // The latency one request adds, without queueing behind others (and without merging of
      // identical in-flight requests): one connection.
      const send = (url: string, headers: Record<string, string>, bodyFor: (n: number) => string = () => spec.body) => (n: number) =>
        fetch(url, { method: 'POST', headers, body: bodyFor(n), signal: AbortSignal.timeout(30_000) });
      row(scenario, latencyMs, 'emulator-seq', 'emulator direct (sequential)', await sequential(sandbox.child.pid, SEQUENTIAL_COUNT, send(`${sandbox.url}/v2/graphql`, upstreamHeaders)));
      if (scenario === '1 secretGreeting') {
        row(scenario, latencyMs, 'raw-seq', 'raw undici proxy (sequential)', await sequential(raw.child.pid, SEQUENTIAL_COUNT, send(`${raw.url}/v2/graphql`, upstreamHeaders)));
        row(scenario, latencyMs, 'hive-seq', 'Hive Gateway proxy (sequential)', await sequential(hive.child.pid, SEQUENTIAL_COUNT, send(`${hive.url}/graphql`, upstreamHeaders)));
        row(scenario, latencyMs, 'gateway-seq', 'our gateway (sequential)', await sequential(gateway.child.pid, SEQUENTIAL_COUNT, send(gatewayGraphql, cookieHeaders)));
      } else {
        const uncachedSeq = await sequential(gateway.child.pid, SEQUENTIAL_COUNT, send(gatewayGraphql, cookieHeaders, (n) => body(query, { bench: `seq-${latencyMs}-${n}` })));
        row(scenario, latencyMs, 'gateway-seq', 'our gateway (uncached, sequential)', uncachedSeq);
      }
      const directSeq = find(scenario, latencyMs, 'emulator-seq');
      for (const key of ['raw-seq', 'hive-seq', 'gateway-seq']) {
        const subject = find(scenario, latencyMs, key);
        if (subject && directSeq) subject.note = `p50 +${(subject.p50Ms - directSeq.p50Ms).toFixed(2)} ms over direct`;
      }
      relate(scenario, latencyMs, 'raw', 'emulator');
      relate(scenario, latencyMs, 'hive', 'emulator');
      relate(scenario, latencyMs, 'gateway', 'raw');
      relate(scenario, latencyMs, 'gateway-uncached', 'raw');
    }
  }

  // 3: definitions cache hits against the raw Redis GET.
  for (const latencyMs of ONLY.has(3) ? LATENCIES : []) {
    await setLatency(targets, latencyMs);
    const scenario = '3 statementDefinitions hit';
    const spec = { body: body(QUERIES.definitions) };
    row(scenario, latencyMs, 'redis', 'raw Redis GET server', await load(redisServer.child.pid, { ...spec, url: `${redisServer.url}/`, headers: json }));
    const hits = await onGateway({ ...spec, headers: cookieHeaders }, ['definitionsHit']);
    row(scenario, latencyMs, 'gateway', 'our gateway', hits.measured, hits.note);
    relate(scenario, latencyMs, 'gateway', 'redis');
  }

  // 4: PDFs, cold and warm, with the upstream bytes counted by the proxy in front of production.
  const pdfHeaders = { ...json, 'x-csrf': '1', cookie: pdfCookie };
  const warmPage = pages[pages.length - 1] ?? [];
  const sendPdf = (ids: readonly string[]) => postJson(gatewayGraphql, { query: QUERIES.pdfs, variables: { ids } }, { 'x-csrf': '1', cookie: pdfCookie });
  const resetCounter = () => counters(counter.url, true);
  const upstreamSince = async (measured: Measured): Promise<NonNullable<Row['upstream']>> => {
    const seen = await counters(counter.url, false);
    const served = Math.max(1, measured.ok + measured.failed);
    return { bytesPerRequest: seen.bytes / served, pdfBytesPerRequest: seen.pdfBytes / served, callsPerRequest: seen.responses / served };
  };
  const sequentialOnGateway = (count: number, send: (n: number) => Promise<Response>) =>
    countedDuring(gateway.url, ['pdfHit', 'pdfMiss'], async (mark) => {
      await resetCounter();
      await mark();
      return sequential(gateway.child.pid, count, send);
    });
  for (const [index, latencyMs] of (ONLY.has(4) ? LATENCIES : []).entries()) {
    await setLatency(targets, latencyMs);
    const scenario = '4 getStatements(20)+pdf';
    const coldPages = pages.slice(index * PDF_PAGES, (index + 1) * PDF_PAGES);
    const cold = await sequentialOnGateway(coldPages.length, (n) => sendPdf(coldPages[n] ?? []));
    const coldRow = row(scenario, latencyMs, 'cold', 'our gateway, cold (sequential)', cold.measured, `fresh statements per read; ${cold.note}`);
    coldRow.upstream = await upstreamSince(cold.measured);
    // Prime the warm page; the gateway does not wait for its PDF cache write, so let it land.
    await (await sendPdf(warmPage)).text();
    await sleep(300);
    const warm = await sequentialOnGateway(coldPages.length, () => sendPdf(warmPage));
    const warmRow = row(scenario, latencyMs, 'warm-seq', 'our gateway, warm (sequential)', warm.measured, warm.note);
    warmRow.upstream = await upstreamSince(warm.measured);
    warmRow.baseline = coldRow.target;
    warmRow.ratio = warm.measured.requestsPerSecond / cold.measured.requestsPerSecond;
    const warmLoad = await onGateway({ headers: pdfHeaders, body: body(QUERIES.pdfs, { ids: warmPage }) }, ['pdfHit', 'pdfMiss'], resetCounter);
    const loadRow = row(scenario, latencyMs, 'warm', 'our gateway, warm', warmLoad.measured, warmLoad.note);
    loadRow.upstream = await upstreamSince(warmLoad.measured);
  }

  // 5: login throughput (each successful login is a new session).
  for (const latencyMs of ONLY.has(5) ? LATENCIES : []) {
    await setLatency(targets, latencyMs);
    const scenario = '5 login (sessions/s)';
    row(scenario, latencyMs, 'emulator', 'emulator sign-in', await load(sandbox.child.pid, { url: `${sandbox.url}/v2/auth/sign_in`, headers: json, body: JSON.stringify({ email: USERS.login, password: PASSWORD }) }));
    const logins = await onGateway({ headers: { ...json, 'x-csrf': '1' }, body: body(QUERIES.login, { e: USERS.login, p: PASSWORD, env: 'SANDBOX' }) }, ['sessions']);
    row(scenario, latencyMs, 'gateway', 'our gateway login', logins.measured, logins.note);
    relate(scenario, latencyMs, 'gateway', 'emulator');
  }

  await setLatency(targets, 0);
  const totalSeconds = (performance.now() - started) / 1000;
  const goalList = goals(totalSeconds);
  console.log(`\nnpm run bench: ${SECONDS} s per run, ${CONNECTIONS} connections (sequential rows: 1), Node ${process.version}, ${os.cpus().length} CPUs, ${startedAt.toISOString()}`);
  console.log('ratio: req/s over the row named in "baseline". RSS: the row\'s target process, max during the run; cpu ms/req: its CPU time per answer.\n');
  console.log(resultsTable());
  console.log('\ngoals');
  console.log(formatTable(['goal', 'measured', 'result'], goalList.map((g) => [g.goal, g.measured, g.pass === undefined ? '?' : g.pass ? 'pass' : 'FAIL']), new Set()));
  console.log(`\ntotal: ${totalSeconds.toFixed(0)} s`);

  mkdirSync(RESULTS_DIR, { recursive: true });
  const results = {
    startedAt: startedAt.toISOString(),
    totalSeconds,
    settings: { seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, pdfPages: PDF_PAGES, latenciesMs: LATENCIES },
    machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '', memoryMiB: Math.round(os.totalmem() / 2 ** 20) },
    rows: rows.map(({ key: _key, ...rest }) => rest),
    goals: goalList,
  };
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const file = path.join(RESULTS_DIR, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, text);
  // latest.json is the last complete run only.
  const complete = [1, 2, 3, 4, 5].every((scenario) => ONLY.has(scenario));
  if (complete) writeFileSync(path.join(RESULTS_DIR, 'latest.json'), text);
  console.log(`results: ${path.relative(ROOT, file)}${complete ? ' and bench/results/latest.json' : ''}`);
  // Requests still in flight when the last load stopped (autocannon closes its sockets) drain.
  await sleep(1_000);

}

/** The gateway's counters this bench reads from /metrics (absent series count as 0). */
const SERIES = {
  sessions: 'statement_gateway_sessions_total{event="login"}',
  readHit: 'statement_gateway_cache_lookups_total{cache="statements",result="hit"}',
  readMiss: 'statement_gateway_cache_lookups_total{cache="statements",result="miss"}',
  pdfHit: 'statement_gateway_cache_lookups_total{cache="pdf",result="hit"}',
  pdfMiss: 'statement_gateway_cache_lookups_total{cache="pdf",result="miss"}',
  definitionsHit: 'statement_gateway_cache_lookups_total{cache="definitions",result="hit"}',
} as const;
type Series = keyof typeof SERIES;

async function gatewayCounters(gateway: string): Promise<Record<Series, number>> {
  const text = await (await fetch(`${gateway}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (!line.startsWith('#') && space > 0) values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return Object.fromEntries(Object.entries(SERIES).map(([name, series]) => [name, values.get(series) ?? 0])) as Record<Series, number>;
}

/** What the gateway counted during the measured requests, as a note: `read cache 0 hits/4012 misses`. */
async function countedDuring(gateway: string, names: readonly Series[], measure: (mark: () => Promise<unknown>) => Promise<Measured>): Promise<{ measured: Measured; note: string; delta: Record<Series, number> }> {
  let before: Record<Series, number> | undefined;
  const measured = await measure(async () => (before = await gatewayCounters(gateway)));
  const after = await gatewayCounters(gateway);
  const delta = Object.fromEntries(Object.keys(SERIES).map((name) => [name, after[name as Series] - (before?.[name as Series] ?? 0)])) as Record<Series, number>;
  return { measured, delta, note: names.map((name) => `${name} ${delta[name]}`).join(', ') };
}

/** The connection to the bench's Redis database, flushed once nothing writes to it any more. */
let benchRedis: Redis | undefined;
let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  currentLoad?.stop();
  await stopChildren();
  if (benchRedis?.status === 'ready') await benchRedis.flushdb().catch(() => undefined);
  benchRedis?.disconnect();
  process.exit(code);
}

process.once('SIGINT', () => void shutdown(130));
process.once('SIGTERM', () => void shutdown(143));

main().then(
  () => shutdown(0),
  (error: unknown) => {
    console.error('bench failed:', error instanceof Error ? error.message : error);
    return shutdown(1);
  },
);
