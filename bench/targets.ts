/**
 * The bench's targets, each a process of its own on 127.0.0.1 (so that the load generator shares
 * no event loop with a target): the emulator (sandbox and production), a raw undici proxy, Hive
 * Gateway in proxy mode, a byte-counting proxy in front of the production emulator, our gateway
 * (whose production upstream is that counting proxy) and, for scenario 3, a raw Redis-GET server.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, launchGateway, ROOT } from '../test/support/launcher';
import type { Children } from './children';
import { control, loopbackOnly, waitForHttp } from './http';
import { DEFINITIONS_KEY, PASSWORD, QUERIES, SERVICE_ACCOUNT, TRUSTED_GREETING_ID, USERS, type Settings } from './settings';

/** A started target: where to send requests, and the process to sample. */
export interface Target {
  readonly url: string;
  readonly pid: number;
}

export interface Targets {
  readonly sandbox: Target;
  readonly production: Target;
  /** The raw undici proxy in front of the sandbox emulator. */
  readonly raw: Target;
  /** The byte-counting proxy in front of the production emulator. */
  readonly counter: Target;
  readonly hive: Target;
  readonly gateway: Target;
}

/** `listening <url>` on stdout, as bench/servers/serve.ts prints it. */
const LISTENING = (output: string) => /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];

async function startEmulator(children: Children, environment: 'sandbox' | 'production'): Promise<Target> {
  const { url, pid } = await children.start({
    name: `emulator-${environment}`,
    args: ['--import', 'tsx', 'emulator/main.ts'],
    env: { NODE_ENV: 'production', EMULATOR_ENVIRONMENT: environment, EMULATOR_PORT: '0', EMULATOR_HOST: '127.0.0.1' },
    ready: (output) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1],
    echo: ['stderr'],
  });
  return { url: loopbackOnly(url), pid };
}

async function startProxy(children: Children, name: string, target: string, count: boolean): Promise<Target> {
  const { url, pid } = await children.start({
    name,
    args: ['--import', 'tsx', 'bench/servers/proxy.ts'],
    env: { NODE_ENV: 'production', BENCH_TARGET: target, ...(count ? { BENCH_COUNT: '1' } : {}) },
    ready: LISTENING,
    echo: ['stderr'],
  });
  return { url: loopbackOnly(url), pid };
}

async function startHive(children: Children, upstream: string): Promise<Target> {
  // Hive Gateway's CLI does not report a port the OS chose: give it a free one.
  const port = await freePort();
  const { pid } = await children.start({
    name: 'hive-gateway',
    args: [path.join(ROOT, 'bench/node_modules/@graphql-hive/gateway/dist/bin.js'), 'proxy', '-c', 'bench/servers/hive-gateway.config.ts', '--host', '127.0.0.1', '--port', String(port)],
    env: { NODE_ENV: 'production', BENCH_HIVE_UPSTREAM: `${upstream}/v2/graphql`, BENCH_HIVE_SCHEMA: path.join(ROOT, 'sources/statement-filing-service/schema.graphql') },
    echo: ['stderr'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthcheck`, 60_000);
  return { url, pid };
}

/** A manifest ({ hash: document }) of the bench's trusted documents, in a temporary folder. */
function trustedDocumentsFile(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'bench-documents-'));
  const file = path.join(folder, 'documents.json');
  writeFileSync(file, JSON.stringify({ [TRUSTED_GREETING_ID().slice('sha256:'.length)]: QUERIES.greeting }));
  return file;
}

/** SERVICE_ACCOUNTS_FILE with the bench's one service account (its limit far above the bench's load). */
function serviceAccountsFile(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'bench-accounts-'));
  const file = path.join(folder, 'service-accounts.json');
  const apiKeySha256 = createHash('sha256').update(SERVICE_ACCOUNT.apiKey).digest('hex');
  writeFileSync(file, JSON.stringify([{ name: SERVICE_ACCOUNT.name, apiKeySha256, email: USERS.pass, passwordEnv: SERVICE_ACCOUNT.passwordEnv, environment: 'sandbox', requestsPerMinute: 1_000_000 }]));
  return file;
}

async function startGateway(children: Children, settings: Settings, sandbox: string, production: string): Promise<Target> {
  const { url, pid } = await launchGateway({
    ...children.tracking('gateway', ['stdout', 'stderr']),
    nodeArgs: [...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []), ...(settings.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(settings.cpuProfileDir)] : [])],
    startTimeoutMs: 60_000,
    env: {
      NODE_ENV: 'production',
      // The emulators and the bench's Redis are plain http:// and redis:// on loopback.
      ALLOW_INSECURE_TRANSPORT: 'true',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // No load balancer to wait for when the bench stops it.
      SHUTDOWN_DELAY: '0',
      UPSTREAM_SANDBOX_URL: sandbox,
      UPSTREAM_PRODUCTION_URL: production,
      REDIS_URL: settings.redisUrl,
      // QUERIES.greeting as a trusted document, for scenario 1's trusted-document row.
      TRUSTED_DOCUMENTS_FILE: trustedDocumentsFile(),
      CREDENTIAL_KEY: randomBytes(32).toString('base64'),
      // Scenario 2's service-account row: one internal service's Bearer key.
      SERVICE_ACCOUNTS_FILE: serviceAccountsFile(),
      [SERVICE_ACCOUNT.passwordEnv]: PASSWORD,
      // The limits are not what is measured: lifted far above any load the bench makes.
      RATE_LIMIT_LOGIN: '1000000/1m',
      RATE_LIMIT_LOGIN_ADDRESS: '1000000/1m',
      RATE_LIMIT_LOGIN_ACCOUNT: '1000000/1m',
      RATE_LIMIT_SESSION: '100000000/1m',
      RATE_LIMIT_ANONYMOUS: '100000000/1m',
      // HOT_PATH=false on the bench's command line measures the same gateway without its hot path.
      ...(process.env.HOT_PATH ? { HOT_PATH: process.env.HOT_PATH } : {}),
      // Tracing is measured by running the bench with OTEL_EXPORTER_OTLP_ENDPOINT (and friends) set.
      ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('OTEL_') && entry[1] !== undefined)),
    },
  });
  return { url: loopbackOnly(url), pid };
}

export async function startTargets(children: Children, settings: Settings): Promise<Targets> {
  const [sandbox, production] = await Promise.all([startEmulator(children, 'sandbox'), startEmulator(children, 'production')]);
  const [raw, counter, hive] = await Promise.all([
    startProxy(children, 'raw-proxy', sandbox.url, false),
    startProxy(children, 'counting-proxy', production.url, true),
    startHive(children, sandbox.url),
  ]);
  const gateway = await startGateway(children, settings, sandbox.url, counter.url);
  return { sandbox, production, raw, counter, hive, gateway };
}

/** A server whose every answer is one Redis GET of DEFINITIONS_KEY in the bench's database. */
export async function startRedisGetServer(children: Children, settings: Settings): Promise<Target> {
  const { url, pid } = await children.start({
    name: 'redis-get-server',
    args: ['--import', 'tsx', 'bench/servers/redis-get.ts'],
    env: { NODE_ENV: 'production', BENCH_REDIS_URL: settings.redisUrl, BENCH_REDIS_KEY: DEFINITIONS_KEY },
    ready: LISTENING,
    echo: ['stderr'],
  });
  return { url: loopbackOnly(url), pid };
}

export async function setLatency(targets: Targets, latencyMs: number): Promise<void> {
  await control(targets.sandbox.url, 'PATCH', 'settings', { latencyMs });
  await control(targets.production.url, 'PATCH', 'settings', { latencyMs });
}

export interface UpstreamCounters {
  readonly responses: number;
  readonly bytes: number;
  readonly pdfBytes: number;
}

/** What the counting proxy counted (and, with `reset`, starts again from zero). */
export async function upstreamCounters(counter: Target, reset: boolean): Promise<UpstreamCounters> {
  const response = await fetch(`${counter.url}/__bench/counters`, { method: reset ? 'DELETE' : 'GET', signal: AbortSignal.timeout(5_000) });
  return (await response.json()) as UpstreamCounters;
}
