/**
 * Two figures of the drop-in front, for docs/performance.md and docs/operations.md. Not part of
 * `npm run bench` (it takes about two minutes, and measures a cost, not a throughput).
 *
 * 1. Re-verification: two gateway replicas on one Redis (in this process), the emulators in child
 *    processes; CLIENTS concurrent clients read one credential's statements through the front
 *    (answered by the read cache) for SECONDS, alternating replicas. The emulator's request log
 *    says how many calls the upstream got for that credential (read-cache refills included), and
 *    the replicas' statement_gateway_front_reverifications_total how many were re-verifications.
 * 2. A 1,000-statement add of the largest form, every field at its longest
 *    (bench/bulk-statements.ts), inline and in variables, RUNS times each: the wall time, the gateway
 *    process's CPU time and its longest event-loop stall (monitorEventLoopDelay) during the request,
 *    and its heap and RSS growth (the emulator runs in a child process, so none of it is counted;
 *    the client's own work, building and sending the body, is).
 *
 *   npx tsx bench/experiments/front-bulk-and-reverify.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadConfig } from '../../src/config';
import { startGateway } from '../../src/gateway/server';
import { bulkStatements, inlineAdd, largestForm, variablesAdd } from '../bulk-statements';
import { randomBytes } from 'node:crypto';

const SECONDS = Number(process.env.SECONDS_REVERIFY ?? 60);
const CLIENTS = Number(process.env.CLIENTS ?? 16);
const RUNS = Number(process.env.RUNS ?? 3);
const PASSWORD = 'a-long-enough-password-123';
const READ = JSON.stringify({ query: '{ getStatements { statements { nodes { otxId uploaderId } } } }' });

async function emulator(port: number, environment: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'emulator/main.ts'], { env: { ...process.env, EMULATOR_PORT: String(port), EMULATOR_ENVIRONMENT: environment }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve()));
  return { url: `http://127.0.0.1:${port}`, child };
}

const control = (url: string, method: string, path: string, body?: unknown) =>
  fetch(`${url}/__emulator${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });

async function main(): Promise<void> {
  const port = 46_000 + Math.floor(Math.random() * 1_000);
  const sandbox = await emulator(port, 'sandbox');
  const production = await emulator(port + 1, 'production');
  const env = {
    PORT: '0', UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, CREDENTIAL_KEY: randomBytes(32).toString('base64'),
    REDIS_URL: process.env.MEASURE_REDIS_URL ?? 'redis://127.0.0.1:6379/12', RATE_LIMIT_SESSION: '100000000/1m', LOG_LEVEL: 'warn', NODE_ENV: 'test',
  };
  const replicas = [await startGateway(loadConfig(env)), await startGateway(loadConfig(env))];
  try {
    const email = `front-measure-${Date.now()}@example.com`;
    await control(sandbox.url, 'POST', '/accounts', { email, password: PASSWORD });
    await control(sandbox.url, 'POST', '/statements', { email, form: 'F1099nec', count: 20 });
    const signedIn = await fetch(`${replicas[0]?.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    const headers = { 'content-type': 'application/json', 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };

    // 1. Re-verification under load.
    await control(sandbox.url, 'DELETE', '/requests');
    const started = performance.now();
    let answered = 0;
    let refused = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = client; performance.now() - started < SECONDS * 1_000; n++) {
        const answer = await fetch(`${replicas[n % 2]?.url}/v2/graphql`, { method: 'POST', headers, body: READ });
        await answer.arrayBuffer();
        if (answer.status === 200) answered++;
        else refused++;
      }
    }));
    const minutes = (performance.now() - started) / 60_000;
    const log = (await (await control(sandbox.url, 'GET', '/requests')).json()) as { uid: string | null }[];
    const calls = log.filter((entry) => entry.uid === email).length;
    // What each replica counted (statement_gateway_front_reverifications_total), apart from read-cache refills.
    let reverified = 0;
    for (const replica of replicas) {
      const text = await (await fetch(`${replica.url}/metrics`)).text();
      for (const match of text.matchAll(/^statement_gateway_front_reverifications_total\{outcome="(\w+)"\} (\d+)/gm)) reverified += Number(match[2]);
    }
    console.log(`re-verifications counted by the replicas: ${reverified} = ${(reverified / minutes).toFixed(1)} per minute`);
    console.log(`re-verification: ${answered} answers (${refused} not 200) in ${(minutes * 60).toFixed(0)} s over 2 replicas, ${CLIENTS} clients: ${calls} upstream calls for the credential = ${(calls / minutes).toFixed(1)} per minute`);

    // 2. 1,000-statement adds.
    const form = largestForm();
    for (const [kind, body] of [
      ['inline', (run: number) => ({ query: inlineAdd(form, bulkStatements(form, `inline-${run}-`)) })],
      ['variables', (run: number) => variablesAdd(form, bulkStatements(form, `variables-${run}-`))],
    ] as const) {
      for (let run = 0; run < RUNS; run++) {
        const text = JSON.stringify(body(run));
        global.gc?.();
        const heapBefore = process.memoryUsage().heapUsed;
        const rssBefore = process.memoryUsage().rss;
        let heapPeak = heapBefore;
        const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 5);
        const stalls = monitorEventLoopDelay({ resolution: 1 });
        stalls.enable();
        const cpu = process.cpuUsage();
        const t0 = performance.now();
        const answer = await fetch(`${replicas[0]?.url}/v2/graphql`, { method: 'POST', headers, body: text });
        const answerText = await answer.text();
        const wallMs = performance.now() - t0;
        const cpuMs = (process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1_000;
        stalls.disable();
        clearInterval(sampler);
        const stored = (answerText.match(/"otxId"/g) ?? []).length;
        console.log(`${kind} add #${run + 1}: ${text.length} bytes, status ${answer.status}, ${stored} stored; wall ${wallMs.toFixed(0)} ms, gateway CPU ${cpuMs.toFixed(0)} ms, longest event-loop stall ${(stalls.max / 1e6).toFixed(0)} ms, heap peak +${((heapPeak - heapBefore) / 2 ** 20).toFixed(0)} MiB, RSS +${((process.memoryUsage().rss - rssBefore) / 2 ** 20).toFixed(0)} MiB`);
      }
    }
  } finally {
    await Promise.all(replicas.map((gateway) => gateway.close()));
    sandbox.child.kill();
    production.child.kill();
  }
}

void main().then(() => process.exit(0));
