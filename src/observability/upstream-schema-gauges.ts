/**
 * The contract's three gauges of the upstream schema check (ops/upstream-schema-watch.ts), read
 * from the check's last results at each scrape, so a scrape costs no upstream call. An
 * environment the check does not cover (no service account, or the check off) has no series; one
 * it covers has a timestamp from the start (0 until a check succeeds, so that one that never
 * succeeds still ages into the UpstreamSchemaCheckStale alert), and counts once a check succeeded.
 * Every family is on /metrics (HELP and TYPE) before its first series.
 */
import { Gauge, type Registry } from 'prom-client';
import type { Environment } from '../environment';

export type UpstreamSchemaSeverity = 'breaking' | 'dangerous' | 'safe';

export interface UpstreamSchemaGauges {
  readonly environment: Environment;
  /** Epoch seconds of the last successful check; 0 before one. */
  readonly checkedAtSeconds: number;
  /** Changes in the last successful check, by severity; absent before one. */
  readonly changes?: Readonly<Record<UpstreamSchemaSeverity, number>>;
  /** Trusted documents the live schema would refuse, in the last successful check; absent before one. */
  readonly invalidDocuments?: number;
}

/** Registers the three gauges; the returned function sets what they read. */
export function upstreamSchemaGauges(registry: Registry): (read: () => Iterable<UpstreamSchemaGauges>) => void {
  let read: () => Iterable<UpstreamSchemaGauges> = () => [];
  // Each collect asks `read` for itself: a scrape reads three families, and the results are small.
  new Gauge({
    name: 'statement_gateway_upstream_schema_changes',
    help: 'Changes between the live upstream schema and the gateway\'s in the last successful check, by environment and severity: breaking (something the gateway\'s schema has is gone or changed), dangerous (graphql-js findDangerousChanges), safe (added).',
    labelNames: ['environment', 'severity'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { environment, changes } of read()) {
        if (changes) for (const severity of ['breaking', 'dangerous', 'safe'] as const) this.labels(environment, severity).set(changes[severity]);
      }
    },
  });
  new Gauge({
    name: 'statement_gateway_upstream_schema_checked_timestamp_seconds',
    help: 'When the upstream schema check last succeeded for an environment (epoch seconds; 0 until one has).',
    labelNames: ['environment'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { environment, checkedAtSeconds } of read()) this.labels(environment).set(checkedAtSeconds);
    },
  });
  new Gauge({
    name: 'statement_gateway_trusted_documents_invalid',
    help: 'Trusted documents (TRUSTED_DOCUMENTS_FILE) the live upstream schema would refuse, in the last successful check, by environment.',
    labelNames: ['environment'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { environment, invalidDocuments } of read()) if (invalidDocuments !== undefined) this.labels(environment).set(invalidDocuments);
    },
  });
  return (reader) => {
    read = reader;
  };
}
