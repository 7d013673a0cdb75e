/**
 * `npm run check:upstream`: the upstream schema check once, for a pipeline before a deploy (or an
 * operator at a terminal). The same check as the gateway's background one
 * (src/ops/upstream-schema-check.ts): each environment that has a service account in
 * SERVICE_ACCOUNTS_FILE signs in as its first one (through the gateway's own runtime and Mesh
 * build, so with REDIS_URL it uses the credential the replicas share), introspects the live
 * upstream, compares it with the schema this checkout serves and validates TRUSTED_DOCUMENTS_FILE.
 *
 * Needs UPSTREAM_SANDBOX_URL and UPSTREAM_PRODUCTION_URL, SERVICE_ACCOUNTS_FILE and the password
 * variables it names (docs/operations.md, "Upstream schema drift"). Prints a table of the changes
 * and the trusted documents that would fail (`--json`: each environment's outcome as JSON),
 * never a password or token; logs (warnings and worse, LOG_LEVEL to change) go to stderr.
 * Exit 0: the same, or only safe and dangerous changes; 1: a breaking change or a refused trusted
 * document (it wins over 2: what was found is certain); 2: an environment with a service account
 * could not be checked, or the configuration does not allow a check.
 */
import { printSchema } from 'graphql';
import { ConfigError, loadConfig, type GatewayConfig } from '../src/config';
import type { Environment } from '../src/environment';
import { loadMesh, upstreamSourceSchema } from '../src/gateway/mesh';
import { createGatewayRuntime } from '../src/gateway/runtime';
import { createLogger } from '../src/observability/logger';
import { checkUpstreamSchema, type SchemaCheckOutcome } from '../src/ops/upstream-schema-check';
import { createTraceContexts } from '../src/tracing/context';
import { countBySeverity } from '../src/upstream/schema-drift';

const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];
type Checked = { readonly environment: Environment; readonly account?: string; readonly outcome?: SchemaCheckOutcome };

class CannotCheck extends Error {}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join('  ').trimEnd();
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) => pad(row, widths)).join('\n');
}

/** The short table: one line per environment, then one per change and refused document. */
function report(checked: readonly Checked[]): string {
  const summary: string[][] = [['environment', 'status', 'breaking', 'dangerous', 'safe', 'refused documents', 'took']];
  const details: string[][] = [];
  for (const { environment, account, outcome } of checked) {
    if (!account || !outcome) {
      summary.push([environment, 'unknown', '-', '-', '-', '-', 'no service account']);
      continue;
    }
    if (!outcome.ok) {
      summary.push([environment, 'failed', '-', '-', '-', '-', `${outcome.durationMs} ms`]);
      details.push([environment, 'failed', account, outcome.error]);
      continue;
    }
    const counts = countBySeverity(outcome.changes);
    const found = outcome.changes.length > 0 || outcome.invalidDocuments.length > 0;
    summary.push([environment, found ? 'changed' : 'same', String(counts.breaking), String(counts.dangerous), String(counts.safe), String(outcome.invalidDocuments.length), `${outcome.durationMs} ms`]);
    for (const change of outcome.changes) details.push([environment, change.severity, change.path, change.description]);
    for (const document of outcome.invalidDocuments) details.push([environment, 'refused', `${document.name} (${document.id.slice(0, 12)})`, document.message]);
  }
  return [table(summary), ...(details.length ? ['', table(details)] : [])].join('\n');
}

/** 1 breaking or refused, else 2 failed, else 0. */
function exitCodeOf(checked: readonly Checked[]): number {
  const outcomes = checked.flatMap(({ outcome }) => (outcome ? [outcome] : []));
  if (outcomes.some((outcome) => outcome.ok && (countBySeverity(outcome.changes).breaking > 0 || outcome.invalidDocuments.length > 0))) return 1;
  return outcomes.some((outcome) => !outcome.ok) ? 2 : 0;
}

function usable(config: GatewayConfig): void {
  if (!config.upstreamUrls.sandbox || !config.upstreamUrls.production) throw new CannotCheck('check:upstream needs UPSTREAM_SANDBOX_URL and UPSTREAM_PRODUCTION_URL (it never checks the built-in emulator)');
  if (!config.serviceAccounts.length) throw new CannotCheck('check:upstream needs SERVICE_ACCOUNTS_FILE with a service account of each environment to check: it signs in as the first one of each');
}

async function main(): Promise<number> {
  const config = loadConfig();
  usable(config);
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', destination: process.stderr });
  const runtime = await createGatewayRuntime(config, logger, createTraceContexts());
  const mesh = await loadMesh(runtime).catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  try {
    const served = upstreamSourceSchema(mesh);
    if (!served) throw new CannotCheck('the Mesh build has no upstream source (npm run build:mesh)');
    const servedSdl = printSchema(served);
    const checked = await Promise.all(ENVIRONMENTS.map(async (environment): Promise<Checked> => {
      const account = config.serviceAccounts.find((candidate) => candidate.environment === environment);
      if (!account) return { environment };
      const outcome = await checkUpstreamSchema({
        upstream: runtime.upstreams[environment], account, credentials: runtime.serviceAccounts.credentials, upstreamFetch: runtime.upstreamFetch,
        servedSdl, documents: config.trustedDocuments.documents.values(), timeoutMs: config.upstreamTimeoutMs,
      });
      return { environment, account: account.name, outcome };
    }));
    if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(checked, null, 2)}\n`);
    else process.stdout.write(`${report(checked)}\n`);
    return exitCodeOf(checked);
  } finally {
    mesh.destroy();
    await runtime.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError || error instanceof CannotCheck ? error.message : `check:upstream could not run: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`${message}\n`);
    process.exit(2);
  },
);
