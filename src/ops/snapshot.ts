/**
 * What the `/ops` page shows, read from the same registry `/metrics` exposes: cumulative counts
 * since the process started. The page keeps a short history and charts the differences.
 */
import type { Registry } from 'prom-client';
import { MISS_REASONS, type CacheName, type CacheResult, type MissReason, type SessionEvent, type UpstreamCallResult } from '../observability/metrics';
import type { UpstreamSchemaStatuses } from './upstream-schema-watch';

export interface UpstreamOperationSnapshot {
  readonly environment: string;
  readonly operation: string;
  readonly calls: Record<UpstreamCallResult, number>;
  /** Total seconds spent in these calls. */
  readonly seconds: number;
  /** Cumulative histogram buckets over every outcome: calls that took at most `le` seconds. */
  readonly buckets: { readonly le: number; readonly count: number }[];
}

export interface OpsSnapshot {
  /** The answering process (counters are per process: behind a load balancer, one history each). */
  readonly instance: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly caches: Record<CacheName, Record<CacheResult, number>>;
  /** Cache misses by cache and reason (`statement_gateway_cache_misses_total`). */
  readonly misses: Record<CacheName, Record<MissReason, number>>;
  readonly upstream: UpstreamOperationSnapshot[];
  /** GraphQL errors by contract code. */
  readonly errors: Record<string, number>;
  readonly rateLimited: Record<string, number>;
  readonly sessions: Record<SessionEvent, number>;
  /** GraphQL HTTP requests answered. */
  readonly requests: number;
  /** Each upstream environment's circuit on this replica: 0 closed, 1 half-open, 2 open. */
  readonly circuits: Record<string, number>;
  /** The last upstream schema check per environment (`GET /ops/upstream-schema`), when the page was given it. */
  readonly upstreamSchema?: UpstreamSchemaStatuses;
}

type Labels = Partial<Record<string, string | number>>;
interface MetricValue {
  readonly value: number;
  readonly labels: Labels;
  readonly metricName?: string;
}

const text = (value: string | number | undefined): string => (value === undefined ? '' : String(value));

export async function opsSnapshot(registry: Registry, now: number, instance: string, upstreamSchema?: UpstreamSchemaStatuses): Promise<OpsSnapshot> {
  const families = new Map<string, readonly MetricValue[]>();
  for (const family of await registry.getMetricsAsJSON()) families.set(family.name, family.values);
  const values = (name: string): readonly MetricValue[] => families.get(name) ?? [];

  const caches: OpsSnapshot['caches'] = {
    definitions: { hit: 0, miss: 0, stale: 0 },
    statements: { hit: 0, miss: 0, stale: 0 },
    pdf: { hit: 0, miss: 0, stale: 0 },
  };
  for (const { labels, value } of values('statement_gateway_cache_lookups_total')) {
    const cache = caches[text(labels.cache) as CacheName] as Record<string, number> | undefined;
    if (cache && text(labels.result) in cache) cache[text(labels.result)] = value;
  }

  const misses = Object.fromEntries((['definitions', 'statements', 'pdf'] as const).map((cache) => [cache, Object.fromEntries(MISS_REASONS.map((reason) => [reason, 0]))])) as OpsSnapshot['misses'];
  for (const { labels, value } of values('statement_gateway_cache_misses_total')) {
    const cache = misses[text(labels.cache) as CacheName] as Record<string, number> | undefined;
    if (cache && text(labels.reason) in cache) cache[text(labels.reason)] = value;
  }

  const upstream = new Map<string, { environment: string; operation: string; calls: Record<UpstreamCallResult, number>; seconds: number; buckets: Map<number, number> }>();
  for (const { labels, value, metricName } of values('statement_gateway_upstream_request_duration_seconds')) {
    const key = `${text(labels.environment)}/${text(labels.operation)}`;
    let entry = upstream.get(key);
    if (!entry) {
      entry = { environment: text(labels.environment), operation: text(labels.operation), calls: { ok: 0, error: 0, timeout: 0 }, seconds: 0, buckets: new Map() };
      upstream.set(key, entry);
    }
    if (metricName?.endsWith('_count')) {
      const outcome = text(labels.outcome) as UpstreamCallResult;
      if (outcome in entry.calls) entry.calls[outcome] += value;
    } else if (metricName?.endsWith('_sum')) {
      entry.seconds += value;
    } else if (metricName?.endsWith('_bucket')) {
      const le = labels.le === '+Inf' ? Number.POSITIVE_INFINITY : Number(labels.le);
      entry.buckets.set(le, (entry.buckets.get(le) ?? 0) + value);
    }
  }

  const byLabel = (name: string, label: string): Record<string, number> => {
    const counts: Record<string, number> = {};
    for (const { labels, value } of values(name)) counts[text(labels[label])] = (counts[text(labels[label])] ?? 0) + value;
    return counts;
  };
  const sessions = { login: 0, logout: 0, expired: 0, rejected: 0, revoked: 0, evicted: 0, ...byLabel('statement_gateway_sessions_total', 'event') };
  const requests = values('graphql_yoga_http_duration').filter((entry) => entry.metricName?.endsWith('_count')).reduce((sum, entry) => sum + entry.value, 0);

  return {
    instance,
    at: now,
    caches,
    misses,
    upstream: [...upstream.values()]
      .map((entry) => ({
        environment: entry.environment,
        operation: entry.operation,
        calls: entry.calls,
        seconds: entry.seconds,
        // JSON has no Infinity: the last bucket is every call anyway.
        buckets: [...entry.buckets.entries()].filter(([le]) => Number.isFinite(le)).sort(([a], [b]) => a - b).map(([le, count]) => ({ le, count })),
      }))
      .sort((a, b) => a.environment.localeCompare(b.environment) || a.operation.localeCompare(b.operation)),
    errors: byLabel('statement_gateway_graphql_errors_total', 'code'),
    rateLimited: byLabel('statement_gateway_rate_limited_total', 'limit'),
    sessions,
    requests,
    circuits: byLabel('statement_gateway_upstream_circuit_state', 'environment'),
    ...(upstreamSchema ? { upstreamSchema } : {}),
  };
}
