/**
 * An outage drill, for the "Measured" figures of docs/resilience.md: what the circuit is worth
 * when the upstream goes down under the bench's load. Not part of `npm run bench` (it takes
 * minutes, and its point is a failure, not a throughput).
 *
 * Each run starts its own emulators and one gateway (NODE_ENV=production, its sessions in Redis
 * database DRILL_REDIS_URL, default 13, flushed before and after), signs in four users with 50
 * statements each, and runs 16 concurrent clients of uncached `getStatements(first: 50)`
 * (`Cache-Control: no-cache`, so every answer needs the upstream) for LEAD + OUTAGE + TAIL seconds.
 * During OUTAGE the sandbox upstream either answers every call 503 (`failNextCount`, whose
 * countdown tells how many calls it received: its request log keeps only 2,000) or hangs past the
 * gateway's UPSTREAM_TIMEOUT_MS (`hangMs`, where the gateway's own upstream histogram counts the
 * calls and the seconds their sockets were held). The TAIL is longer than a cooldown, so that the
 * first good answer after a circuit's next probe is inside the run.
 *
 *   npx tsx bench/experiments/outage-drill.ts            # 503 x2 and hang x1, each with and without the circuit
 *   DRILL_ONLY=503 DRILL_RUNS=1 DRILL_CLIENTS=1 npx tsx bench/experiments/outage-drill.ts
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { ensureMesh } from '../../scripts/ensure-mesh';
import { launchGateway } from '../../test/support/launcher';
import { Children } from '../children';
import { cleanAnswer, control, gatewayLogin, loopbackOnly, sleep } from '../http';
import { PASSWORD, QUERIES } from '../settings';

const LEAD_S = 5;
const OUTAGE_S = 30;
const TAIL_S = 15;
/** DRILL_CLIENTS (16, the bench's connections): 1 shows an open circuit's answer without queueing. */
const CLIENTS = Math.max(1, Number(process.env.DRILL_CLIENTS ?? 16));
const USERS = ['drill-1@example.com', 'drill-2@example.com', 'drill-3@example.com', 'drill-4@example.com'];
/** More calls than any 30 s outage can make: the countdown never reaches zero by itself. */
const FAIL_COUNT = 1_000_000;
/** Longer than the gateway's timeout: every call made while it is set is ended by the gateway. */
const HANG_MS = 60_000;
const UPSTREAM_TIMEOUT_MS = 10_000;
/** UPSTREAM_CIRCUIT_FAILURES' largest value: the circuit then opens only after that many consecutive failures. */
const NO_CIRCUIT_FAILURES = 10_000;

type Fault = '503' | 'hang';
interface Drill {
  readonly fault: Fault;
  readonly circuit: boolean;
}

interface Answer {
  readonly startMs: number;
  readonly endMs: number;
  readonly status: number;
  /** `ok`, the first error's `extensions.code`, or `other`. */
  readonly code: string;
}

interface Result {
  readonly drill: Drill;
  readonly outageCalls: number | undefined;
  readonly failedCalls: number;
  readonly failedCallSeconds: number;
  readonly byCode: Record<string, number>;
  readonly answersPerSecond: number;
  readonly unavailableP50: number;
  readonly unavailableP95: number;
  readonly firstOkAfterMs: number | undefined;
}

const redisUrl = process.env.DRILL_REDIS_URL ?? 'redis://127.0.0.1:6379/13';

function codeOf(status: number, body: string): string {
  if (status === 200 && cleanAnswer(body)) return 'ok';
  return /"code":"([A-Z_]+)"/.exec(body)?.[1] ?? 'other';
}

/** Upstream attempts of the sandbox that failed (error or timeout), and the seconds they took, from /metrics. */
async function failedUpstream(gateway: string): Promise<{ count: number; seconds: number }> {
  const text = await (await fetch(`${gateway}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  let count = 0;
  let seconds = 0;
  for (const line of text.split('\n')) {
    const match = /^statement_gateway_upstream_request_duration_seconds_(count|sum)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match?.[2]?.includes('environment="sandbox"') || match[2].includes('outcome="ok"')) continue;
    if (match[1] === 'count') count += Number(match[3]);
    else seconds += Number(match[3]);
  }
  return { count, seconds };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** `clients` loops of the statements query, each with one of the cookies, until `until` (performance.now()). */
async function load(gateway: string, cookies: readonly string[], until: number): Promise<Answer[]> {
  const pool = new Pool(gateway, { connections: CLIENTS, keepAliveTimeout: 60_000 });
  const body = JSON.stringify({ query: QUERIES.statements });
  const answers: Answer[] = [];
  const client = async (index: number) => {
    const headers = { 'content-type': 'application/json', 'x-csrf': '1', 'cache-control': 'no-cache', cookie: cookies[index % cookies.length] ?? '' };
    while (performance.now() < until) {
      const startMs = performance.now();
      try {
        const response = await pool.request({ method: 'POST', path: '/graphql', headers, body, headersTimeout: 30_000, bodyTimeout: 30_000 });
        const text = await response.body.text();
        answers.push({ startMs, endMs: performance.now(), status: response.statusCode, code: codeOf(response.statusCode, text) });
      } catch {
        answers.push({ startMs, endMs: performance.now(), status: 0, code: 'transport' });
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
  await pool.close();
  return answers;
}

async function startDrill(children: Children, drill: Drill): Promise<{ sandbox: string; gateway: string }> {
  const emulator = async (environment: 'sandbox' | 'production') =>
    loopbackOnly(
      (
        await children.start({
          name: `emulator-${environment}`,
          args: ['--import', 'tsx', 'emulator/main.ts'],
          env: { NODE_ENV: 'production', EMULATOR_ENVIRONMENT: environment, EMULATOR_PORT: '0', EMULATOR_HOST: '127.0.0.1' },
          ready: (output) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1],
          echo: ['stderr'],
        })
      ).url,
    );
  const [sandbox, production] = await Promise.all([emulator('sandbox'), emulator('production')]);
  const { url } = await launchGateway({
    ...children.tracking('gateway', ['stderr']),
    startTimeoutMs: 60_000,
    env: {
      NODE_ENV: 'production',
      ALLOW_INSECURE_TRANSPORT: 'true',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      SHUTDOWN_DELAY: '0',
      UPSTREAM_SANDBOX_URL: sandbox,
      UPSTREAM_PRODUCTION_URL: production,
      REDIS_URL: redisUrl,
      CREDENTIAL_KEY: Buffer.alloc(32, 7).toString('base64'),
      UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      UPSTREAM_CIRCUIT_FAILURES: drill.circuit ? '10' : String(NO_CIRCUIT_FAILURES),
      UPSTREAM_CIRCUIT_COOLDOWN: '10s',
      // The limits are not what is measured.
      RATE_LIMIT_LOGIN: '1000000/1m',
      RATE_LIMIT_LOGIN_ADDRESS: '1000000/1m',
      RATE_LIMIT_LOGIN_ACCOUNT: '1000000/1m',
      RATE_LIMIT_SESSION: '100000000/1m',
    },
  });
  return { sandbox, gateway: loopbackOnly(url) };
}

/** The running drill's processes, killed if this script exits early (an error, Ctrl-C). */
let current: Children | undefined;
process.once('exit', () => current?.killAll());
process.once('SIGINT', () => process.exit(130));

async function runDrill(drill: Drill): Promise<Result> {
  const children = (current = new Children());
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.flushdb();
    const { sandbox, gateway } = await startDrill(children, drill);
    const cookies: string[] = [];
    for (const email of USERS) {
      await control(sandbox, 'POST', 'accounts', { email, password: PASSWORD });
      await control(sandbox, 'POST', 'statements', { email, form: 'F1099nec', count: 50 });
      cookies.push(await gatewayLogin(gateway, email, 'SANDBOX'));
    }
    const started = performance.now();
    const running = load(gateway, cookies, started + (LEAD_S + OUTAGE_S + TAIL_S) * 1_000);
    await sleep(LEAD_S * 1_000);
    const before = await failedUpstream(gateway);
    const outageStart = performance.now();
    await control(sandbox, 'PATCH', 'settings', drill.fault === '503' ? { failNextCount: FAIL_COUNT, failNextStatus: 503 } : { hangMs: HANG_MS });
    await sleep(OUTAGE_S * 1_000 - (performance.now() - outageStart));
    // The end is when it is called, not when the emulator has heard it (a request or two later).
    const outageEnd = performance.now();
    let outageCalls: number | undefined;
    if (drill.fault === '503') {
      const left = ((await control(sandbox, 'GET', 'settings')) as { failNextCount: number }).failNextCount;
      outageCalls = FAIL_COUNT - left;
    }
    await control(sandbox, 'PATCH', 'settings', drill.fault === '503' ? { failNextCount: 0 } : { hangMs: 0 });
    const answers = await running;
    const after = await failedUpstream(gateway);

    const inOutage = answers.filter((a) => a.startMs >= outageStart && a.startMs < outageEnd);
    const byCode: Record<string, number> = {};
    for (const a of inOutage) byCode[`${a.status} ${a.code}`] = (byCode[`${a.status} ${a.code}`] ?? 0) + 1;
    const unavailable = inOutage
      .filter((a) => a.code === 'UPSTREAM_UNAVAILABLE')
      .map((a) => a.endMs - a.startMs)
      .sort((x, y) => x - y);
    const firstOk = answers
      .filter((a) => a.code === 'ok' && a.startMs >= outageEnd)
      .reduce<number | undefined>((first, a) => (first === undefined || a.endMs < first ? a.endMs : first), undefined);
    return {
      drill,
      outageCalls,
      failedCalls: after.count - before.count,
      failedCallSeconds: after.seconds - before.seconds,
      byCode,
      answersPerSecond: inOutage.length / ((outageEnd - outageStart) / 1_000),
      unavailableP50: percentile(unavailable, 50),
      unavailableP95: percentile(unavailable, 95),
      firstOkAfterMs: firstOk === undefined ? undefined : firstOk - outageEnd,
    };
  } finally {
    await children.stopAll();
    if (redis.status === 'ready') await redis.flushdb().catch(() => undefined);
    redis.disconnect();
  }
}

const ms = (value: number | undefined) => (value === undefined || Number.isNaN(value) ? '-' : value < 10 ? value.toFixed(2) : value.toFixed(0));

function row(result: Result): string {
  const { drill } = result;
  const codes = Object.entries(result.byCode)
    .sort((a, b) => b[1] - a[1])
    .map(([code, count]) => `${code} ${count}`)
    .join(', ');
  return [
    drill.fault === '503' ? 'upstream 503s' : `upstream hangs (timeout ${UPSTREAM_TIMEOUT_MS / 1_000} s)`,
    drill.circuit ? 'circuit (10, 10 s)' : `no circuit (${NO_CIRCUIT_FAILURES})`,
    result.outageCalls === undefined ? '-' : String(result.outageCalls),
    String(result.failedCalls),
    result.failedCallSeconds.toFixed(1),
    result.answersPerSecond.toFixed(0),
    `${ms(result.unavailableP50)} / ${ms(result.unavailableP95)}`,
    result.firstOkAfterMs === undefined ? 'none' : `${ms(result.firstOkAfterMs)} ms`,
    codes,
  ].join(' | ');
}

async function main(): Promise<void> {
  const runs = Math.max(1, Number(process.env.DRILL_RUNS ?? 2));
  const faults: Fault[] = process.env.DRILL_ONLY === '503' ? ['503'] : process.env.DRILL_ONLY === 'hang' ? ['hang'] : ['503', 'hang'];
  await ensureMesh();
  const drills: Drill[] = [];
  for (const fault of faults) {
    for (let run = 0; run < (fault === 'hang' ? 1 : runs); run++) drills.push({ fault, circuit: true }, { fault, circuit: false });
  }
  console.log(`outage drill: ${CLIENTS} clients, ${LEAD_S} s + ${OUTAGE_S} s outage + ${TAIL_S} s, ${new Date().toISOString()}`);
  console.log('| fault | gateway | upstream calls (emulator) | failed upstream calls (gateway) | socket s of failed calls | answers/s | UPSTREAM_UNAVAILABLE p50 / p95 ms | first ok after the end | answers during the outage |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const drill of drills) console.log(`| ${row(await runDrill(drill))} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
