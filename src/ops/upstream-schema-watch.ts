/**
 * The upstream schema check in the background: at start (never delaying it) and every
 * UPSTREAM_SCHEMA_CHECK_INTERVAL, for each environment that has a service account (its first one),
 * one check (upstream-schema-check.ts) at a time, shared by the replicas through the cache store
 * (upstream-schema-shared.ts). It tells operators, never changes what is served: no hot reload
 * (docs/operations.md says why). Results: statuses() for `GET /ops/upstream-schema` and the /ops
 * page, the three gauges, and `upstream.schema_changed` when a result differs from the last one.
 *
 * Its calls stand outside the circuit (upstream/background-calls.ts), its timers are unref'd, and
 * nothing runs after close().
 */
import { printSchema, type GraphQLSchema } from 'graphql';
import type { TrustedDocument } from '../config';
import type { ServiceAccount, ServiceAccountCredentials } from '../credentials/service-accounts';
import { ENVIRONMENTS, type Environment } from '../environment';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics, UpstreamSchemaGauges } from '../observability/metrics';
import type { BackgroundCalls } from '../upstream/background-calls';
import type { UpstreamFetch } from '../upstream/fetch';
import { findDriftOnThread, type DriftInput, type DriftOutput } from '../upstream/schema-drift-thread';
import { countBySeverity, type SchemaChange } from '../upstream/schema-drift';
import type { UpstreamTarget } from '../upstream/target';
import type { InvalidDocument } from '../upstream/trusted-document-drift';
import { startSchemaCheck } from './upstream-schema-check';
import { schemaCheckFingerprint, type CheckRecord, type SharedSchemaChecks } from './upstream-schema-shared';

export type SchemaCheckStatus = 'same' | 'changed' | 'unknown' | 'failed';

/** One environment in `GET /ops/upstream-schema` (the contract's fields, and a few more). */
export interface EnvironmentSchemaCheck {
  /** The last attempt (ISO-8601), null before one. */
  readonly checkedAt: string | null;
  readonly status: SchemaCheckStatus;
  /** Of the last successful check (`lastSuccessAt`); kept through a failure. */
  readonly changes: readonly SchemaChange[];
  readonly invalidDocuments: readonly InvalidDocument[];
  readonly lastSuccessAt: string | null;
  /** `failed`: why; `unknown`: why not. */
  readonly reason?: string;
  readonly durationMs?: number;
}

export type UpstreamSchemaStatuses = Readonly<Record<Environment, EnvironmentSchemaCheck>>;

export interface UpstreamSchemaWatchOptions {
  /** UPSTREAM_SCHEMA_CHECK_INTERVAL; 0: off. */
  readonly intervalMs: number;
  /** UPSTREAM_TIMEOUT_MS: one check's bound. */
  readonly timeoutMs: number;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  /** SERVICE_ACCOUNTS_FILE's accounts: each environment's first one checks it. */
  readonly accounts: readonly ServiceAccount[];
  readonly credentials: Pick<ServiceAccountCredentials, 'lease' | 'renew' | 'rotated'>;
  /** The runtime's upstream client, which sends background work's calls beside the circuit. */
  readonly upstreamFetch: UpstreamFetch;
  readonly background: Pick<BackgroundCalls, 'run'>;
  readonly documents: ReadonlyMap<string, TrustedDocument>;
  /** Built for this gateway's fingerprint once start() knows the served schema. */
  readonly shared: (fingerprint: string) => SharedSchemaChecks;
  readonly metrics: Pick<GatewayMetrics, 'watchUpstreamSchema'>;
  readonly log: Pick<LogEvents, 'upstreamSchemaChanged' | 'upstreamSchemaCheckFailed'>;
  readonly clock: () => number;
}

export interface UpstreamSchemaWatch {
  /** Starts the checks with the schema the gateway serves, once, in the background. */
  start(served: GraphQLSchema): void;
  statuses(): UpstreamSchemaStatuses;
  /** No check starts after this; one in flight ends on its own timeouts, unheard. */
  close(): void;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
/** What makes two results the same for the log line: the findings, not when they were found. */
const findings = (record: CheckRecord | undefined) => JSON.stringify(record ? [record.changes, record.invalidDocuments] : [[], []]);

export function createUpstreamSchemaWatch(options: UpstreamSchemaWatchOptions): UpstreamSchemaWatch {
  const { intervalMs, timeoutMs, clock } = options;
  const accountOf = (environment: Environment) => options.accounts.find((account) => account.environment === environment);
  const records = new Map<Environment, CheckRecord>();
  const timers = new Set<NodeJS.Timeout>();
  let started = false;
  let closed = false;
  // One comparison thread at a time: both environments' checks start together, and two threads at
  // once would double the memory a check takes (a thread's heap, about 60 MB, while it runs).
  let comparing: Promise<unknown> = Promise.resolve();
  const findDrift = (input: DriftInput): Promise<DriftOutput> => {
    const run = comparing.then(() => findDriftOnThread(input));
    comparing = run;
    return run;
  };

  const later = (ms: number, run: () => void) => {
    if (closed) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) run();
    }, ms);
    timer.unref();
    timers.add(timer);
  };
  /** A record newer than the one held replaces it. */
  const adopt = (environment: Environment, record: CheckRecord | undefined) => {
    const held = records.get(environment);
    if (record && (!held || record.at > held.at)) records.set(environment, record);
  };

  const checkNow = async (environment: Environment, account: ServiceAccount, servedSdl: string, previous: CheckRecord | undefined): Promise<CheckRecord> => {
    const at = clock();
    const { outcome, settled } = options.background.run(() => startSchemaCheck({
      upstream: options.upstreams[environment], account, credentials: options.credentials, upstreamFetch: options.upstreamFetch,
      servedSdl, documents: options.documents.values(), timeoutMs, findDrift,
    }));
    const result = await outcome;
    // One check at a time: the next waits for this one's work, even past its outcome.
    await settled;
    if (!result.ok) {
      if (!closed) options.log.upstreamSchemaCheckFailed({ environment, account: account.name, reason: result.error, durationMs: result.durationMs });
      return { at, ok: false, error: result.error, durationMs: result.durationMs, changes: previous?.changes ?? [], invalidDocuments: previous?.invalidDocuments ?? [], lastSuccessAt: previous?.lastSuccessAt ?? null };
    }
    const record: CheckRecord = { at, ok: true, durationMs: result.durationMs, changes: result.changes, invalidDocuments: result.invalidDocuments, lastSuccessAt: at };
    const lastSuccess = previous && previous.lastSuccessAt !== null ? previous : undefined;
    if (!closed && findings(record) !== findings(lastSuccess)) {
      options.log.upstreamSchemaChanged({
        environment, ...countBySeverity(record.changes), invalidDocuments: record.invalidDocuments.length,
        paths: record.changes.filter((change) => change.severity !== 'safe').slice(0, 20).map((change) => change.path),
        documents: record.invalidDocuments.slice(0, 20).map((document) => `${document.name} (${document.id.slice(0, 12)})`),
      });
    }
    return record;
  };

  const tick = async (environment: Environment, account: ServiceAccount, servedSdl: string, shared: SharedSchemaChecks): Promise<void> => {
    try {
      adopt(environment, await shared.latest(environment));
      if (await shared.claim(environment, intervalMs)) {
        const record = await checkNow(environment, account, servedSdl, records.get(environment));
        // Closed meanwhile: the stores are going away, and nobody asks any more.
        if (closed) return;
        adopt(environment, record);
        await shared.publish(environment, record, 2 * intervalMs + timeoutMs);
      } else {
        // Another replica may be checking now: its result is read once it has had the time to
        // finish (the upstream's part, and a few seconds for the comparison).
        later(timeoutMs + 5_000, () => void shared.latest(environment).then((record) => adopt(environment, record), () => undefined));
      }
    } finally {
      // The next tick an interval after this one ended: one check at a time per environment.
      later(intervalMs, () => void tick(environment, account, servedSdl, shared).catch(() => undefined));
    }
  };

  options.metrics.watchUpstreamSchema(() => {
    const gauges: UpstreamSchemaGauges[] = [];
    for (const environment of ENVIRONMENTS) {
      if (intervalMs <= 0 || !accountOf(environment)) continue;
      const record = records.get(environment);
      const success = record?.lastSuccessAt ?? null;
      gauges.push({
        environment,
        // Before a first success, only the timestamp (0: never), so that a check that never
        // succeeds still ages into UpstreamSchemaCheckStale; the counts are unknown, not zero.
        checkedAtSeconds: success === null ? 0 : success / 1000,
        ...(record && success !== null ? { changes: countBySeverity(record.changes), invalidDocuments: record.invalidDocuments.length } : {}),
      });
    }
    return gauges;
  });

  return {
    start(served) {
      if (started || closed || intervalMs <= 0) return;
      started = true;
      // Printed once: each check's comparison thread builds it again from the text.
      const servedSdl = printSchema(served);
      const shared = options.shared(schemaCheckFingerprint(servedSdl, options.documents.keys()));
      for (const environment of ENVIRONMENTS) {
        const account = accountOf(environment);
        // In the background: the start (and its first requests) never wait for the upstream.
        if (account) later(0, () => void tick(environment, account, servedSdl, shared).catch(() => undefined));
      }
    },
    statuses() {
      const status = (environment: Environment): EnvironmentSchemaCheck => {
        const empty = { checkedAt: null, changes: [], invalidDocuments: [], lastSuccessAt: null } as const;
        if (intervalMs <= 0) return { ...empty, status: 'unknown', reason: 'the check is off (UPSTREAM_SCHEMA_CHECK_INTERVAL=0)' };
        if (!accountOf(environment)) return { ...empty, status: 'unknown', reason: `no service account of this environment in SERVICE_ACCOUNTS_FILE` };
        const record = records.get(environment);
        if (!record) return { ...empty, status: 'unknown', reason: 'no check has finished yet' };
        const found = record.changes.length > 0 || record.invalidDocuments.length > 0;
        return {
          checkedAt: iso(record.at), status: record.ok ? (found ? 'changed' : 'same') : 'failed', changes: record.changes, invalidDocuments: record.invalidDocuments,
          lastSuccessAt: iso(record.lastSuccessAt), durationMs: record.durationMs, ...(record.error ? { reason: record.error } : {}),
        };
      };
      return { sandbox: status('sandbox'), production: status('production') };
    },
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
