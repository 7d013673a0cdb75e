/**
 * What one gateway's plugins and resolvers share for its lifetime: configuration, stores, the
 * upstream client and the logger. `createGatewayRuntime(config)` builds it and returns it with its
 * `close()`; nothing is global, so two gateways can run in one process.
 */
import { createForwarder, type Forwarder } from '../fast-path/forward';
import { createRedisIdempotencyStore } from '../idempotency/redis-idempotency-store';
import { createMemoryIdempotencyStore, type IdempotencyStore } from '../idempotency/idempotency-store';
import { DocumentPlans } from '../fast-path/plans';
import { DocumentFacts } from '../request/executed';
import { createRequestState, type RequestState } from './request-state';
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis';
import type { Logger } from 'pino';
import { createCaches, type Caches } from '../cache';
import { createMemoryCacheStore } from '../cache/memory-cache-store';
import { createRedisCacheStore } from '../cache/redis-cache-store';
import type { CacheStore } from '../cache/cache-store';
import type { GatewayConfig } from '../config';
import { createServiceAccounts, type ServiceAccounts } from '../credentials';
import { createCredentialCipher } from '../credentials/cipher';
import { connectableUpstreamAuth, type ConnectableUpstreamAuth } from '../credentials/upstream-auth';
import { createDerivedKeys, type DerivedKeys } from '../derived-keys';
import { createInternalRequests, type InternalRequests } from '../http/internal-requests';
import { createVerifiedCredentials, type VerifiedCredentials } from '../drop-in/verified-credentials';
import type { EmbeddedUpstreams } from './embedded-upstreams';
import { ENVIRONMENTS, type Environment } from '../environment';
import { createLifecycle, type Lifecycle } from '../observability/lifecycle';
import { createLogEvents, type LogEvents } from '../observability/log-events';
import { createMetrics, type GatewayMetrics } from '../observability/metrics';
import { createStoreHealth, type StoreHealth } from '../observability/store-health';
import { createMemoryAccountBackoff, createRedisAccountBackoff } from '../protection/account-backoff';
import { createLoginLimits, type LoginLimits } from '../protection/login-limits';
import { batchedRateLimit } from '../protection/batched-rate-limit';
import { createMemoryRateLimitStore, createRedisRateLimitStore, failOpenRateLimit, type RateLimitStore } from '../protection/rate-limiter';
import { createRedisClient, waitForReady } from '../redis';
import { createMemorySessionStore } from '../session/memory-session-store';
import { createRedisSessionStore } from '../session/redis-session-store';
import { createSessionCache } from '../session/session-cache';
import { Sessions, type ActiveSession } from '../session/sessions';
import type { IndexedSessionStore } from '../session/session-index';
import { UserSessions } from '../session/user-sessions';
import { createUpstreamFetch, type UpstreamFetch } from '../upstream/fetch';
import { createResilience } from '../upstream/resilience';
import { createUpstreamProbe } from '../upstream/probe';
import { createEgress } from '../upstream/egress';
import type { Dispatcher } from 'undici';
import { createDependencyWatch, type DependencyWatch } from '../ops/dependency-watch';
import { createSharedSchemaChecks } from '../ops/upstream-schema-shared';
import { createUpstreamSchemaWatch, type UpstreamSchemaWatch } from '../ops/upstream-schema-watch';
import { createBackgroundCalls, uncountedResilience } from '../upstream/background-calls';
import { upstreamTarget, type UpstreamTarget } from '../upstream/target';
import type { Tracing } from '../tracing/provider';
import { tracedUpstreamFetch } from '../upstream/upstream-spans';
import type { TraceContexts } from '../tracing/context';

export interface GatewayRuntime {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  readonly log: LogEvents;
  readonly clock: () => number;
  readonly metrics: GatewayMetrics;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  readonly upstreamFetch: UpstreamFetch;
  /** The egress proxy's dispatcher, which every upstream call goes out with; undefined: undici's default. */
  readonly upstreamDispatcher?: Dispatcher;
  /** Sign-in and sign-out upstream, for `login`, `logout` and the service accounts; connected to Mesh by the server. */
  readonly upstreamAuth: ConnectableUpstreamAuth;
  readonly sessions: Sessions;
  /** Listing and ending a user's sessions: theirs, the operators' revoke, the cap (session/user-sessions.ts). */
  readonly userSessions: UserSessions;
  /** Reachability of the session store, as requests last saw it. */
  readonly sessionStoreHealth: StoreHealth;
  readonly caches: Caches;
  readonly serviceAccounts: ServiceAccounts;
  /** Request-rate limits, shared by replicas through the session store's Redis (failing open). */
  readonly rateLimits: RateLimitStore;
  /** Login limits (per address, address and e-mail, account), for `login` and the front's sign-in. */
  readonly loginLimits: LoginLimits;
  /** Keys derived from CREDENTIAL_KEY per purpose (MACs, keyed Redis key names). */
  readonly keys: DerivedKeys;
  /** Idempotency records of mutations, in the session store (Redis, else memory). */
  readonly idempotency: IdempotencyStore;
  /** The drop-in front's record of credentials the upstream accepted. */
  readonly verifiedCredentials: VerifiedCredentials;
  /** Per-request state, one slot per piece (gateway/request-state.ts), for this gateway's requests only. */
  readonly requestState: RequestState;
  /** What is found once per parsed document (its executed operations, whether it selects `pdf`). */
  readonly documents: DocumentFacts;
  /** Plans per document for the fast path (src/fast-path/); told the upstream's schema at start. */
  readonly plans: DocumentPlans;
  readonly forwarder: Forwarder;
  /** Starting, serving, stopping: what /readiness answers. */
  readonly lifecycle: Lifecycle;
  /** The shared dependencies' states for /readiness, checked in the background until close(). */
  readonly dependencies: DependencyWatch;
  /** The live upstream schemas against the served one, checked in the background from start() until close(). */
  readonly upstreamSchema: UpstreamSchemaWatch;
  /** Requests the gateway sends through its own pipeline (the PDF download's read); connected by the server. */
  readonly internalRequests: InternalRequests;
  /** The built-in emulator, when no upstream URL was configured. */
  readonly embedded?: EmbeddedUpstreams;
  /** OpenTelemetry, when an OTLP endpoint is configured (src/tracing/). */
  readonly tracing?: Tracing;
  /** Stops every connection and the built-in emulator. */
  close(): Promise<void>;
}

export async function createGatewayRuntime(config: GatewayConfig, logger: Logger, traces: TraceContexts): Promise<GatewayRuntime> {
  const log = createLogEvents(logger);
  const clock = Date.now;
  /** Redis connections, closed last (the session cache's subscriber is closed by the cache). */
  const clients: RedisClient[] = [];

  const missing = ENVIRONMENTS.filter((environment) => !config.upstreamUrls[environment]);
  // Imported only when needed: a production start (upstream URLs set) loads nothing of the
  // emulator, and the compiled build (dist/) does not contain it.
  const embedded = missing.length ? await (await import('./embedded-upstreams.js')).startEmbeddedUpstreams() : undefined;
  const baseUrl = (environment: Environment) => config.upstreamUrls[environment] ?? embedded?.[environment].url ?? '';
  const upstreams = { sandbox: upstreamTarget('sandbox', baseUrl('sandbox')), production: upstreamTarget('production', baseUrl('production')) };

  const sessionStoreHealth = createStoreHealth('sessions', log);
  let redis: RedisClient | undefined;
  let store: IndexedSessionStore & { close?: () => void };
  if (config.redis) {
    redis = createRedisClient({ target: config.redis, health: sessionStoreHealth });
    clients.push(redis);
    await waitForReady(redis, 3_000);
    store = createRedisSessionStore(redis);
  } else {
    store = createMemorySessionStore();
  }
  const metrics = createMetrics();
  // Without CREDENTIAL_KEY (memory stores only), a key of this process is the root of every
  // derived key (credentials, caches, MACs, key names) instead.
  const credentialKey = config.credentialKey ?? randomBytes(32);
  const keys = createDerivedKeys(credentialKey, config.previousCredentialKeys);
  const cipher = createCredentialCipher(credentialKey, config.previousCredentialKeys);
  // With Redis, replicas remember a resolved session for a moment (src/session/session-cache.ts).
  const sessionCache =
    redis && config.redis && config.sessionCacheMs > 0
      ? createSessionCache<ActiveSession>({
          ttlMs: config.sessionCacheMs,
          maxEntries: 100_000,
          clock,
          redis,
          subscriber: createRedisClient({ target: config.redis, name: 'session-invalidations' }),
          endOf: (session) => session.absoluteExpiresAt,
          onLookup: (result) => metrics.sessionCacheLookup(result),
          onPublishFailed: () => log.sessionInvalidationUnpublished(),
        })
      : undefined;
  const sessions = new Sessions({
    store, cipher, idleMs: config.sessionIdleMs, absoluteMs: config.sessionAbsoluteMs, clock, keys, maxPerUser: config.sessionMaxPerUser,
    ...(sessionCache ? { cache: sessionCache } : {}),
  });

  // Caches fail open, on their own connections with a shorter command timeout: a slow or absent
  // cache store costs a request a quarter of a second at most, then it goes on uncached.
  const cacheHealth = createStoreHealth('caches', log);
  let cacheStore: CacheStore;
  if (config.cacheRedis) {
    const cacheRedis = createRedisClient({ target: config.cacheRedis, health: cacheHealth, commandTimeoutMs: 250 });
    const subscriber = createRedisClient({ target: config.cacheRedis, health: cacheHealth, commandTimeoutMs: 250 });
    clients.push(cacheRedis, subscriber);
    await waitForReady(cacheRedis, 3_000);
    cacheStore = createRedisCacheStore({ redis: cacheRedis, subscriber });
  } else {
    cacheStore = createMemoryCacheStore();
  }
  const caches = createCaches({ config, store: cacheStore, keys, health: cacheHealth, metrics, log, clock });

  // The egress proxy, once, for the upstream calls and the OTLP export. The built-in emulator
  // listens in this process, on loopback: its calls never leave the machine, so never the proxy.
  const egress = config.egressProxy ? createEgress(config.egressProxy) : undefined;
  const dispatcher = embedded ? undefined : egress?.dispatcher;
  // Loaded only with an endpoint: without one, no SDK is loaded or started.
  const tracing = config.tracing ? await (await import('../tracing/provider.js')).createTracing(config.tracing, traces, egress ? { agentFor: egress.agentFor } : {}) : undefined;
  // One probe per environment in flight, shared by the circuit (after a timeout) and readiness.
  const upstreamProbe = createUpstreamProbe({ upstreams, now: clock, ...(dispatcher ? { dispatcher } : {}) });
  const resilience = createResilience({ ...config.upstreamResilience, metrics, now: clock, upstreamUp: (environment) => upstreamProbe.up(environment) });
  // Background work's calls (the upstream schema check's, and a sign-in it causes) go out beside
  // the circuit, which judges the upstream by users' calls (upstream/background-calls.ts).
  const background = createBackgroundCalls(createUpstreamFetch({ timeoutMs: config.upstreamTimeoutMs, log, metrics, resilience: uncountedResilience(), ...(dispatcher ? { dispatcher } : {}) }));
  const untracedFetch = background.route(createUpstreamFetch({ timeoutMs: config.upstreamTimeoutMs, log, metrics, resilience, ...(dispatcher ? { dispatcher } : {}) }));
  // One CLIENT span per call the gateway makes (its retries inside it).
  const upstreamFetch = tracing ? tracedUpstreamFetch(tracing, untracedFetch) : untracedFetch;
  const upstreamAuth = connectableUpstreamAuth();
  const serviceAccounts = createServiceAccounts({
    config, cipher, upstreams, auth: upstreamAuth, log, metrics, clock,
    locks: caches.store,
    storeHealth: sessionStoreHealth,
    ...(redis ? { redis } : {}),
  });
  const rateLimitsFailClosed = redis ? createRedisRateLimitStore(redis, clock) : createMemoryRateLimitStore(clock);
  // The session, anonymous and service-account limits reserve small blocks (batched-rate-limit.ts).
  const batchedLimits = redis ? batchedRateLimit(rateLimitsFailClosed, { clock }) : undefined;
  const rateLimits = failOpenRateLimit(batchedLimits ?? rateLimitsFailClosed, (error) => sessionStoreHealth.failed(error), () => sessionStoreHealth.ok());
  const loginLimits = createLoginLimits({
    // Logins fail closed: these counters throw while Redis is away.
    counters: rateLimitsFailClosed,
    accounts: redis ? createRedisAccountBackoff(redis, clock) : createMemoryAccountBackoff(clock),
    limits: config.limits, health: sessionStoreHealth, log, metrics, names: keys,
  });

  const dependencies = createDependencyWatch({ sessionStore: sessions.store, cacheStore: caches.store, upstreams: upstreamProbe });
  const namespaces = { sandbox: upstreams.sandbox.cacheNamespace, production: upstreams.production.cacheNamespace };
  const upstreamSchema = createUpstreamSchemaWatch({
    intervalMs: config.upstreamSchemaCheck.intervalMs, timeoutMs: config.upstreamTimeoutMs, upstreams, accounts: config.serviceAccounts,
    credentials: serviceAccounts.credentials, upstreamFetch, background, documents: config.trustedDocuments.documents, metrics, log, clock,
    shared: (fingerprint) => createSharedSchemaChecks({ store: caches.store, keys, namespaces, fingerprint }),
  });
  const documents = new DocumentFacts();
  const requestState = createRequestState();
  let closing: Promise<void> | undefined;
  return {
    config, logger, log, clock, metrics, upstreams, upstreamFetch, upstreamAuth, sessions, sessionStoreHealth, caches, serviceAccounts, rateLimits, loginLimits,
    keys,
    userSessions: new UserSessions({ sessions, auth: upstreamAuth, upstreams, metrics, log, health: sessionStoreHealth, clock }),
    idempotency: redis ? createRedisIdempotencyStore(redis) : createMemoryIdempotencyStore(clock),
    verifiedCredentials: createVerifiedCredentials(redis, { keys, clock }),
    requestState,
    documents,
    plans: new DocumentPlans(documents),
    lifecycle: createLifecycle(),
    dependencies,
    upstreamSchema,
    forwarder: createForwarder({ upstreamFetch, log, metrics, outcomes: requestState.outcomes }),
    internalRequests: createInternalRequests(),
    ...(embedded ? { embedded } : {}),
    ...(tracing ? { tracing } : {}),
    ...(dispatcher ? { upstreamDispatcher: dispatcher } : {}),
    close: () =>
      (closing ??= (async () => {
        upstreamSchema.close();
        dependencies.close();
        upstreamProbe.close();
        store.close?.();
        await sessionCache?.close();
        await caches.store.close();
        await batchedLimits?.release();
        batchedLimits?.close();
        for (const client of clients) await client.quit().catch(() => client.disconnect());
        await embedded?.close();
        await tracing?.shutdown();
        await egress?.close();
        metrics.close();
      })()),
  };
}
