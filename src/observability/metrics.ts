/**
 * The gateway's Prometheus metrics, on one registry per gateway (tests get a fresh one each).
 * Label values come from bounded sets only: cache names, results, schema operation names.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Environment } from '../environment';
import { watchEventLoopStalls } from './event-loop-stalls';
import { upstreamSchemaGauges, type UpstreamSchemaGauges } from './upstream-schema-gauges';

export type { UpstreamSchemaGauges } from './upstream-schema-gauges';

export type CacheName = 'definitions' | 'statements' | 'pdf';
export type CacheResult = 'hit' | 'miss' | 'stale';
/** Why a lookup missed: never held (or evicted), past its TTL, `Cache-Control: no-cache`, dropped by a mutation through the gateway or by a purge, or the cache store unreachable. */
export type MissReason = 'cold' | 'expired' | 'bypass' | 'invalidated' | 'purged' | 'store_down';
export const MISS_REASONS: readonly MissReason[] = ['cold', 'expired', 'bypass', 'invalidated', 'purged', 'store_down'];
/** The scopes of `POST /ops/cache/purge`. */
export type PurgeScope = 'definitions' | 'identity' | 'statement' | 'all';
export const PURGE_SCOPES: readonly PurgeScope[] = ['definitions', 'identity', 'statement', 'all'];
export type UpstreamCallResult = 'ok' | 'error' | 'timeout';
export type IdempotencyResult = 'stored' | 'replayed' | 'in_use' | 'reused';
/** accepted: the upstream accepted the credential again; refused: 401, forgotten; failed: no usable answer. */
export type ReverificationOutcome = 'accepted' | 'refused' | 'failed';
export type SessionEvent = 'login' | 'logout' | 'expired' | 'rejected' | 'revoked' | 'evicted';
/** The shared dependencies /readiness reports on. */
export type Dependency = 'sessionStore' | 'cacheStore' | 'upstreamSandbox' | 'upstreamProduction';
export type DependencyStates = Readonly<Record<Dependency, 'up' | 'down'>>;

/** Seconds: from a 5 ms answer on loopback to the 10 s default upstream timeout. */
export const UPSTREAM_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface GatewayMetrics {
  readonly registry: Registry;
  /** Stops the event-loop stall watcher (event-loop-stalls.ts). */
  close(): void;
  /** The contract's `statement_gateway_cache_lookups_total{cache, result}`. */
  cacheLookup(cache: CacheName, result: CacheResult, count?: number): void;
  /** The contract's `statement_gateway_cache_misses_total{cache, reason}` (PDFs: one per PDF). */
  cacheMiss(cache: CacheName, reason: MissReason, count?: number): void;
  /** The contract's `statement_gateway_cache_purges_total{scope}`: a purge that dropped (not a dry run). */
  cachePurge(scope: PurgeScope): void;
  /** Response-cache (statement reads) hit or miss, per operation. */
  readCacheLookup(operation: string, result: 'hit' | 'miss'): void;
  /** A cache store command that failed (the request went on uncached). */
  cacheStoreError(operation: string): void;
  /** The contract's `statement_gateway_rate_limited_total{limit}`. */
  rateLimited(limit: string): void;
  /** A service account's upstream sign-in, by outcome (ok, refused, failed). */
  accountSignIn(account: string, outcome: 'ok' | 'refused' | 'failed'): void;
  /** A request with an API key that names no service account. */
  apiKeyRejected(): void;
  /**
   * The contract's `statement_gateway_upstream_request_duration_seconds{environment, operation,
   * outcome}`: one upstream HTTP call, until its answer's headers (or its failure).
   */
  upstreamRequest(environment: Environment, operation: string, outcome: UpstreamCallResult, seconds: number): void;
  /** The contract's `statement_gateway_sessions_total{event}`. */
  session(event: SessionEvent): void;
  sessionCacheLookup(result: 'hit' | 'miss'): void;
  /** One error in a GraphQL answer, by its contract code. */
  graphqlError(code: string): void;
  /** An operation executed by the fast path (src/fast-path/) instead of Mesh's delegation. */
  forwarded(kind: 'query' | 'mutation'): void;
  /** A request answered by the hot path (src/hot-path/hot-path.ts) instead of the Yoga pipeline. */
  hotPathAnswered(): void;
  /**
   * The contract's `statement_gateway_dependency_up{dependency}`: at each scrape, the states the
   * readiness checks last found (`current`), so that a scrape costs no upstream call; load
   * balancers' and orchestrators' readiness probes keep them a few seconds fresh. No series before.
   */
  observeDependencies(current: () => DependencyStates | undefined): void;
  /** The contract's `statement_gateway_upstream_retries_total{environment, outcome}`: one retried attempt. */
  upstreamRetry(environment: Environment, outcome: 'ok' | 'error'): void;
  /**
   * The contract's `statement_gateway_upstream_circuit_state{environment}` (0 closed, 1 half-open,
   * 2 open), read from `read` at each scrape.
   */
  watchCircuits(read: () => Iterable<readonly [Environment, number]>): void;
  /**
   * The contract's `statement_gateway_upstream_schema_changes{environment, severity}`,
   * `..._checked_timestamp_seconds{environment}` and `statement_gateway_trusted_documents_invalid{environment}`,
   * read from `read` (the upstream schema check's last results) at each scrape.
   */
  watchUpstreamSchema(read: () => Iterable<UpstreamSchemaGauges>): void;
  /** The contract's `statement_gateway_idempotency_total{result}`. */
  idempotency(result: IdempotencyResult): void;
  /** `statement_gateway_front_reverifications_total{outcome}`: a drop-in credential re-verified with the upstream. */
  frontReverification(outcome: ReverificationOutcome): void;
}

export function createMetrics(options: { readonly processMetrics?: boolean } = {}): GatewayMetrics {
  const registry = new Registry();
  const processMetrics = options.processMetrics ?? true;
  if (processMetrics) collectDefaultMetrics({ register: registry });
  const stopStallWatch = processMetrics ? watchEventLoopStalls(registry) : () => undefined;
  const watchUpstreamSchema = upstreamSchemaGauges(registry);
  const lookups = new Counter({
    name: 'statement_gateway_cache_lookups_total',
    help: 'Cache lookups by cache (definitions, statements, pdf) and result (hit, miss, stale). PDF lookups count one per PDF.',
    labelNames: ['cache', 'result'] as const,
    registers: [registry],
  });
  const misses = new Counter({
    name: 'statement_gateway_cache_misses_total',
    help: 'Cache misses by cache and reason: cold (never held, or evicted), expired (past its TTL), bypass (Cache-Control: no-cache), invalidated (dropped by a mutation through the gateway), purged (dropped by POST /ops/cache/purge), store_down (the cache store could not be reached). PDFs count one per PDF.',
    labelNames: ['cache', 'reason'] as const,
    registers: [registry],
  });
  const purges = new Counter({
    name: 'statement_gateway_cache_purges_total',
    help: 'Purges through POST /ops/cache/purge that dropped cached data (dry runs are not counted), by scope.',
    labelNames: ['scope'] as const,
    registers: [registry],
  });
  const readLookups = new Counter({
    name: 'statement_gateway_response_cache_lookups_total',
    help: 'Statement read response-cache lookups by operation and result (hit, miss).',
    labelNames: ['operation', 'result'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'statement_gateway_cache_store_errors_total',
    help: 'Cache store commands that failed; the request was answered without the cache.',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'statement_gateway_rate_limited_total',
    help: 'Requests refused with RATE_LIMITED, by limit.',
    labelNames: ['limit'] as const,
    registers: [registry],
  });
  const accountSignIns = new Counter({
    name: 'statement_gateway_service_account_sign_ins_total',
    help: 'Upstream sign-ins the gateway made for service accounts, by account and outcome (ok, refused, failed).',
    labelNames: ['account', 'outcome'] as const,
    registers: [registry],
  });
  const keyRejections = new Counter({
    name: 'statement_gateway_api_key_rejections_total',
    help: 'Requests whose API key names no service account (UNAUTHENTICATED).',
    registers: [registry],
  });
  const upstreamDuration = new Histogram({
    name: 'statement_gateway_upstream_request_duration_seconds',
    help: 'Upstream HTTP calls until the whole answer was read, by environment, operation (the upstream operation: a root field, signIn, signOut, graphql for the drop-in pass-through) and outcome (ok: any answer below 500; error: refused or 5xx; timeout).',
    labelNames: ['environment', 'operation', 'outcome'] as const,
    buckets: UPSTREAM_DURATION_BUCKETS,
    registers: [registry],
  });
  const sessions = new Counter({
    name: 'statement_gateway_sessions_total',
    help: 'Browser session events: login, logout, expired (the cookie names a session the store no longer holds: past its idle or absolute end, or an unknown id), rejected (a malformed cookie, or the upstream refused the credential), revoked (ended by its user from another session, logoutEverywhere, or the operators\' revoke), evicted (ended by a login beyond SESSION_MAX_PER_USER).',
    labelNames: ['event'] as const,
    registers: [registry],
  });
  const sessionCache = new Counter({
    name: 'statement_gateway_session_cache_lookups_total',
    help: 'Cookie requests whose session came from the in-process session cache (hit) or from the session store (miss).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const graphqlErrors = new Counter({
    name: 'statement_gateway_graphql_errors_total',
    help: 'Errors in GraphQL answers, by contract code.',
    labelNames: ['code'] as const,
    registers: [registry],
  });
  const forwarded = new Counter({
    name: 'statement_gateway_forwarded_operations_total',
    help: 'Operations of upstream fields only, sent upstream as one call by the fast path instead of executed through Mesh.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const hotPathAnswers = new Counter({
    name: 'statement_gateway_hot_path_answers_total',
    help: 'Requests for planned trusted documents answered by the hot path on Node http, by the same steps as the Yoga pipeline.',
    registers: [registry],
  });
  let currentDependencies: (() => DependencyStates | undefined) | undefined;
  new Gauge({
    name: 'statement_gateway_dependency_up',
    help: 'Whether a shared dependency answered the last readiness check (1 up, 0 down): sessionStore, cacheStore, upstreamSandbox, upstreamProduction. Readiness stays 200 while one is down; alert on this instead.',
    labelNames: ['dependency'] as const,
    registers: [registry],
    collect() {
      for (const [dependency, state] of Object.entries(currentDependencies?.() ?? {})) this.labels(dependency).set(state === 'up' ? 1 : 0);
    },
  });
  const retries = new Counter({
    name: 'statement_gateway_upstream_retries_total',
    help: 'Retried upstream attempts (calls safe to repeat, after no answer or a 502, 503 or 504), by environment and outcome (ok: the retry got an answer; error: it failed too).',
    labelNames: ['environment', 'outcome'] as const,
    registers: [registry],
  });
  const idempotency = new Counter({
    name: 'statement_gateway_idempotency_total',
    help: 'Mutations with an Idempotency-Key, by result: stored (ran, answer kept), replayed (answered from the kept answer), in_use (409: the first still running), reused (422: another request with the key).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const reverifications = new Counter({
    name: 'statement_gateway_front_reverifications_total',
    help: 'Drop-in credentials re-verified with the upstream (one request per credential about every 7 s while it is in use, passed through), by outcome: accepted, refused (401: forgotten at once), failed (no usable answer: the record still ends 10 s after the last acceptance).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  let readCircuits: () => Iterable<readonly [Environment, number]> = () => [];
  new Gauge({
    name: 'statement_gateway_upstream_circuit_state',
    help: 'The circuit of each upstream environment on this replica: 0 closed, 1 half-open (the next call is a probe), 2 open (no call is made).',
    labelNames: ['environment'] as const,
    registers: [registry],
    collect() {
      for (const environment of ['sandbox', 'production'] as const) this.labels(environment).set(0);
      for (const [environment, state] of readCircuits()) this.labels(environment).set(state);
    },
  });
  // Zero series from the start, so rates and dashboards have every combination.
  for (const cache of ['definitions', 'statements', 'pdf'] as const) {
    for (const result of ['hit', 'miss', 'stale'] as const) lookups.labels(cache, result).inc(0);
    for (const reason of MISS_REASONS) misses.labels(cache, reason).inc(0);
  }
  for (const scope of PURGE_SCOPES) purges.labels(scope).inc(0);
  for (const event of ['login', 'logout', 'expired', 'rejected', 'revoked', 'evicted'] as const) sessions.labels(event).inc(0);
  for (const result of ['hit', 'miss'] as const) sessionCache.labels(result).inc(0);
  for (const kind of ['query', 'mutation'] as const) forwarded.labels(kind).inc(0);
  for (const result of ['stored', 'replayed', 'in_use', 'reused'] as const) idempotency.labels(result).inc(0);
  for (const outcome of ['accepted', 'refused', 'failed'] as const) reverifications.labels(outcome).inc(0);
  for (const environment of ['sandbox', 'production'] as const) {
    for (const outcome of ['ok', 'error'] as const) retries.labels(environment, outcome).inc(0);
  }
  return {
    registry,
    cacheLookup: (cache, result, count = 1) => lookups.labels(cache, result).inc(count),
    cacheMiss: (cache, reason, count = 1) => misses.labels(cache, reason).inc(count),
    cachePurge: (scope) => purges.labels(scope).inc(),
    readCacheLookup: (operation, result) => readLookups.labels(operation, result).inc(),
    cacheStoreError: (operation) => storeErrors.labels(operation).inc(),
    rateLimited: (limit) => rateLimited.labels(limit).inc(),
    accountSignIn: (account, outcome) => accountSignIns.labels(account, outcome).inc(),
    apiKeyRejected: () => keyRejections.inc(),
    upstreamRequest: (environment, operation, outcome, seconds) => upstreamDuration.labels(environment, operation, outcome).observe(seconds),
    session: (event) => sessions.labels(event).inc(),
    sessionCacheLookup: (result) => sessionCache.labels(result).inc(),
    graphqlError: (code) => graphqlErrors.labels(code).inc(),
    forwarded: (kind) => forwarded.labels(kind).inc(),
    hotPathAnswered: () => hotPathAnswers.inc(),
    observeDependencies: (current) => {
      currentDependencies = current;
    },
    upstreamRetry: (environment, outcome) => retries.labels(environment, outcome).inc(),
    idempotency: (result) => idempotency.labels(result).inc(),
    frontReverification: (outcome) => reverifications.labels(outcome).inc(),
    watchCircuits: (read) => {
      readCircuits = read;
    },
    watchUpstreamSchema,
    close: stopStallWatch,
  };
}
