/**
 * `npm run bench`: the benchmark table. One command starts every target itself on 127.0.0.1, each
 * in a process of its own (targets.ts), runs the scenarios (scenarios/, BENCH_ONLY picks some) at
 * emulator latency 0 ms and 50 ms, prints one table and the goals (report.ts), and writes
 * bench/results/<time>.json and, after a run of every scenario, bench/results/latest.json.
 *
 * Each autocannon run lasts BENCH_SECONDS (10) after a warm-up run of 1 s that is not counted, on
 * BENCH_CONNECTIONS (16) connections (load.ts). BENCH_PDF_PAGES (40) bounds the cold PDF reads;
 * BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the gateway. Every load is bounded in time and
 * count and only touches 127.0.0.1; every child process is stopped at the end, on an error and on
 * SIGINT/SIGTERM. The bench's Redis database (BENCH_REDIS_URL, default DB 14: a loopback Redis,
 * and a database other than 0 and 9, which the tests use) is flushed before and after the run.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { ensureMesh } from '../scripts/ensure-mesh';
import { Children } from './children';
import { control, gatewayLogin, JSON_HEADERS, upstreamSignIn } from './http';
import { Loader } from './load';
import { benchGoals, evaluateGoals, printReport, writeResults } from './report';
import { Rows } from './rows';
import { definitions } from './scenarios/definitions';
import type { Fixture, Scenario, ScenarioContext } from './scenarios/context';
import { logins } from './scenarios/logins';
import { passThrough } from './scenarios/pass-through';
import { pdfs } from './scenarios/pdfs';
import { statements } from './scenarios/statements';
import { clockTicksPerSecond } from './sampling';
import { PASSWORD, readSettings, SERVICE_ACCOUNT, USERS, type Settings } from './settings';
import { setLatency, startTargets, type Targets } from './targets';

const SCENARIOS: readonly Scenario[] = [passThrough, statements, definitions, pdfs, logins];

/** Statements per PDF read (scenario 4). */
const PDF_PAGE_SIZE = 20;

function benchRedis(settings: Settings): Redis {
  const redis = new Redis(settings.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  const { host, db } = redis.options;
  if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`BENCH_REDIS_URL must be a loopback Redis, got ${host}`);
  // The bench flushes its database: never the default one, nor the tests' DB 9.
  if (db === undefined || db === 0 || db === 9) throw new Error(`BENCH_REDIS_URL must name a database of its own (not 0 or 9), got ${db ?? 'none'}`);
  return redis;
}

/** The accounts and statements the scenarios use, and their credentials. */
async function prepare(targets: Targets, settings: Settings): Promise<Fixture> {
  const { sandbox, production, gateway } = targets;
  await control(sandbox.url, 'POST', 'accounts', { email: USERS.pass, password: PASSWORD });
  await control(sandbox.url, 'POST', 'statements', { email: USERS.pass, form: 'F1099nec', count: 50 });
  await control(sandbox.url, 'POST', 'accounts', { email: USERS.login, password: PASSWORD });
  await control(production.url, 'POST', 'accounts', { email: USERS.pdf, password: PASSWORD });
  // Cold pages for each latency, and one more: the warm page.
  const pageCount = settings.pdfPages * settings.latenciesMs.length + 1;
  const pdfStatements = (await control(production.url, 'POST', 'statements', { email: USERS.pdf, form: 'F1099nec', count: PDF_PAGE_SIZE * pageCount })) as { otxId: string }[];
  const pdfPages = Array.from({ length: pageCount }, (_, i) => pdfStatements.slice(i * PDF_PAGE_SIZE, (i + 1) * PDF_PAGE_SIZE).map((s) => s.otxId));
  const credential = await upstreamSignIn(sandbox.url, USERS.pass);
  const cookie = await gatewayLogin(gateway.url, USERS.pass, 'SANDBOX');
  const pdfCookie = await gatewayLogin(gateway.url, USERS.pdf, 'PRODUCTION');
  return {
    upstreamHeaders: { ...JSON_HEADERS, ...credential },
    cookieHeaders: { ...JSON_HEADERS, 'x-csrf': '1', cookie },
    serviceHeaders: { ...JSON_HEADERS, authorization: `Bearer ${SERVICE_ACCOUNT.apiKey}` },
    pdfHeaders: { ...JSON_HEADERS, 'x-csrf': '1', cookie: pdfCookie },
    pdfPages,
  };
}

async function bench(settings: Settings, children: Children, loader: Loader, redis: Redis): Promise<void> {
  const started = performance.now();
  const startedAt = new Date();
  await ensureMesh();
  await redis.connect();
  await redis.flushdb();

  console.error(`bench: ${settings.seconds} s per run after a ${settings.warmupSeconds} s warm-up, ${settings.connections} connections, latencies ${settings.latenciesMs.join(' and ')} ms; starting the targets`);
  const targets = await startTargets(children, settings);
  const fixture = await prepare(targets, settings);
  console.error(`bench: targets ready after ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const rows = new Rows();
  const context: ScenarioContext = { settings, targets, loader, rows, fixture, children, redis };
  for (const scenario of SCENARIOS) if (settings.only.has(scenario.number)) await scenario.run(context);

  await setLatency(targets, 0);
  const totalSeconds = (performance.now() - started) / 1000;
  const run = { settings, startedAt, totalSeconds, rows, goals: evaluateGoals(benchGoals(settings), rows, totalSeconds) };
  printReport(run);
  writeResults(run);
}

function main(): void {
  const settings = readSettings();
  const children = new Children();
  const loader = new Loader(settings, clockTicksPerSecond());
  const redis = benchRedis(settings);
  process.once('exit', () => children.killAll());
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    loader.stop();
    await children.stopAll();
    // Flushed once nothing writes to it any more.
    if (redis.status === 'ready') await redis.flushdb().catch(() => undefined);
    redis.disconnect();
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown(130));
  process.once('SIGTERM', () => void shutdown(143));
  bench(settings, children, loader, redis).then(
    // Requests still in flight when the last load stopped (autocannon closes its sockets) drain.
    () => new Promise((resolve) => setTimeout(resolve, 1_000)).then(() => shutdown(0)),
    (error: unknown) => {
      console.error('bench failed:', error instanceof Error ? error.message : error);
      return shutdown(1);
    },
  );
}

main();
