/**
 * What `npm run bench` runs with, read once from its environment, and the accounts and documents
 * the scenarios use. Outside tools set these variables and read the results: their names stay.
 */
import { createHash } from 'node:crypto';

export interface Settings {
  /** BENCH_SECONDS (10): each measured run; 2 gives a smoke run. */
  readonly seconds: number;
  /** A run before each measured one, outside every figure. */
  readonly warmupSeconds: number;
  /** BENCH_CONNECTIONS (16): autocannon's connections. */
  readonly connections: number;
  /** BENCH_PDF_PAGES (40): cold PDF reads per latency at most (each one needs 20 fresh statements). */
  readonly pdfPages: number;
  /** The emulator latencies each scenario runs at. */
  readonly latenciesMs: readonly number[];
  /** Requests of each one-connection loop at most (and BENCH_SECONDS at most). */
  readonly sequentialCount: number;
  /** BENCH_ONLY=1,4: only those scenarios (a quick look; the goals then show gaps). */
  readonly only: ReadonlySet<number>;
  /** BENCH_REDIS_URL: the bench's own database, flushed before and after the run. */
  readonly redisUrl: string;
  /** BENCH_CPU_PROF=<dir>: a V8 CPU profile of the gateway, written there when it stops. */
  readonly cpuProfileDir: string | undefined;
}

export const ALL_SCENARIOS = [1, 2, 3, 4, 5] as const;

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(text)}`);
  return value;
}

function latencies(text: string): number[] {
  const values = text.split(',').map((part) => Number(part.trim()));
  if (values.some((value) => !Number.isInteger(value) || value < 0 || value > 10_000)) throw new Error(`BENCH_LATENCIES must list whole milliseconds from 0 to 10000, got ${JSON.stringify(text)}`);
  return values;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const seconds = positive(env, 'BENCH_SECONDS', 10);
  return {
    seconds,
    warmupSeconds: Math.min(1, seconds / 2),
    connections: Math.round(positive(env, 'BENCH_CONNECTIONS', 16)),
    pdfPages: Math.round(positive(env, 'BENCH_PDF_PAGES', 40)),
    // BENCH_LATENCIES=50: only that emulator latency (for experiments; a full run takes both).
    latenciesMs: latencies(env.BENCH_LATENCIES ?? '0,50'),
    sequentialCount: 100,
    only: new Set((env.BENCH_ONLY ?? ALL_SCENARIOS.join(',')).split(',').map((part) => Number(part.trim()))),
    redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14',
    cpuProfileDir: env.BENCH_CPU_PROF || undefined,
  };
}

export const PASSWORD = 'a-long-enough-password-123';

export const USERS = {
  pass: 'bench-pass@example.com',
  login: 'bench-login@example.com',
  pdf: 'bench-pdf@example.com',
} as const;

/**
 * The bench's service account (scenario 2's `our gateway (uncached, service account)` row): it signs
 * in upstream as USERS.pass, the account the cookie rows read, so both rows read the same 50 statements.
 */
export const SERVICE_ACCOUNT = {
  name: 'bench-service',
  apiKey: 'bench-service-account-key-0123456789abcdef',
  passwordEnv: 'BENCH_SERVICE_ACCOUNT_PASSWORD',
} as const;

/** Where the raw Redis-GET server finds the gateway's answer to the definitions query. */
export const DEFINITIONS_KEY = 'bench:definitions-answer';

/** The trusted document of scenario 1's trusted-document row: `documentId` names QUERIES.greeting. */
export const TRUSTED_GREETING_ID = () => `sha256:${createHash('sha256').update(QUERIES.greeting).digest('hex')}`;

export const QUERIES = {
  greeting: '{ secretGreeting { response errors } }',
  statements:
    'query Statements { getStatements(first: 50) { statements { nodes { otxId uploaderId formType recipientFirstName recipientLastName recipientCity senderName status statusDescription taxYear } } errors } }',
  definitions:
    '{ statementDefinitions { definitions { identifier name title description recipientName senderName fields { identifier dataType boxLabel boxNumber description frequentUse sortOrder yearsUsed } } errors } }',
  pdfs: 'query Pdfs($ids: [String!]) { getStatements(otxIds: $ids) { statements { nodes { otxId uploaderId pdf } } errors } }',
  login: 'mutation Login($e: String!, $p: String!, $env: Environment) { login(email: $e, password: $p, environment: $env) { uid } }',
} as const;
