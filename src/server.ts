/**
 * Builds and starts one gateway: the runtime (stores, upstream client, logger), the Mesh schema
 * from the `mesh build` artifacts, and a Yoga server over Node's http. `src/main.ts` is the CLI;
 * tests and the benchmark start gateways as child processes through it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { GetMeshOptions } from '@graphql-mesh/runtime';
import { getMesh } from '@graphql-mesh/runtime';
import { createYoga, useSchema } from 'graphql-yoga';
import type { DestinationStream } from 'pino';
import type { Redis } from 'ioredis';
import { type GatewayConfig } from './config';
import { ENVIRONMENTS, type Environment } from './environment';
import { createServiceAccounts } from './credentials';
import { createCredentialCipher } from './credentials/cipher';
import { frontSchemaOf } from './drop-in/front-schema';
import { createVerifiedCredentials } from './drop-in/verified-credentials';
import { createParseCaches } from './protection/parse-caches';
import { createMemoryRateLimitStore, createRedisRateLimitStore, failOpenRateLimit } from './protection/rate-limiter';
import { createMemoryAccountBackoff, createRedisAccountBackoff } from './protection/account-backoff';
import { createLoginLimits } from './protection/login-limits';
import { startEmbeddedUpstreams, type EmbeddedUpstreams } from './embedded-upstreams';
import { bodyLimit, continueWithinLimit } from './http/body-limit';
import { edge } from './http/edge';
import { createLogEvents } from './observability/log-events';
import { createLogger } from './observability/logger';
import { meshLogger } from './observability/mesh-logger';
import { createStoreHealth } from './observability/store-health';
import { createMetrics } from './observability/metrics';
import { createCaches } from './cache';
import { createMemoryCacheStore } from './cache/memory-store';
import { createRedisCacheStore } from './cache/redis-store';
import type { CacheStore } from './cache/store';
import { createRedisClient, waitForReady } from './redis';
import { stateOf } from './gateway/context';
import { publicSchema } from './gateway/public-schema';
import { installRuntime, type GatewayRuntime } from './gateway/runtime';
import { upstreamTarget } from './upstream/target';
import { createMemorySessionStore } from './session/memory-store';
import { createRedisSessionStore } from './session/redis-store';
import { createSessionCache } from './session/session-cache';
import { Sessions, type ActiveSession } from './session/sessions';
import type { SessionStore } from './session/store';
import { createUpstreamFetch } from './upstream/fetch';

export interface RunningGateway {
  readonly url: string;
  readonly runtime: GatewayRuntime;
  readonly embedded?: EmbeddedUpstreams;
  close(): Promise<void>;
}

interface MeshArtifacts {
  getMeshOptions(): Promise<GetMeshOptions>;
}

const ROOT = path.resolve(__dirname, '..');

async function loadMeshArtifacts(): Promise<MeshArtifacts> {
  const file = path.join(ROOT, '.mesh', 'index.ts');
  try {
    return (await import(file)) as MeshArtifacts;
  } catch (error) {
    throw new Error(`Cannot load the Mesh build in .mesh/ (run \`npm run build:mesh\`): ${error instanceof Error ? error.message : String(error)}`);
  }
}

export async function startGateway(config: GatewayConfig, options: { readonly logDestination?: DestinationStream } = {}): Promise<RunningGateway> {
  const logger = createLogger({ level: config.logLevel, ...(options.logDestination ? { destination: options.logDestination } : {}) });
  const log = createLogEvents(logger);
  const clock = Date.now;

  const missing = ENVIRONMENTS.filter((environment) => !config.upstreamUrls[environment]);
  const embedded = missing.length ? await startEmbeddedUpstreams() : undefined;
  const baseUrl = (environment: Environment) => config.upstreamUrls[environment] ?? embedded?.[environment].url ?? '';
  const upstreams = { sandbox: upstreamTarget('sandbox', baseUrl('sandbox')), production: upstreamTarget('production', baseUrl('production')) };

  const sessionStoreHealth = createStoreHealth('sessions', log);
  let redis: Redis | undefined;
  let store: SessionStore & { close?: () => void };
  if (config.redisUrl) {
    redis = createRedisClient({ url: config.redisUrl, health: sessionStoreHealth });
    await waitForReady(redis, 3_000);
    store = createRedisSessionStore(redis);
  } else {
    store = createMemorySessionStore();
  }
  const metrics = createMetrics();
  // Without CREDENTIAL_KEY (memory stores only), a key of this process seals the credentials and
  // the cached statements alike.
  const credentialKey = config.credentialKey ?? randomBytes(32);
  const cipher = createCredentialCipher(credentialKey, config.previousCredentialKeys);
  // With Redis, replicas remember a resolved session for a moment (src/session/session-cache.ts),
  // never longer than a quarter of the idle timeout.
  const sessionCacheMs = Math.min(config.sessionCacheMs, Math.floor(config.sessionIdleMs / 4));
  const sessionCache =
    redis && config.redisUrl && sessionCacheMs > 0
      ? createSessionCache<ActiveSession>({
          ttlMs: sessionCacheMs,
          maxEntries: 100_000,
          clock,
          redis,
          subscriber: createRedisClient({ url: config.redisUrl, name: 'session-invalidations' }),
          endOf: (session) => session.absoluteExpiresAt,
          onLookup: (result) => metrics.sessionCacheLookup(result),
          onPublishFailed: () => log.sessionInvalidationUnpublished(),
        })
      : undefined;
  const sessions = new Sessions({
    store,
    cipher,
    idleMs: config.sessionIdleMs,
    absoluteMs: config.sessionAbsoluteMs,
    clock,
    ...(sessionCache ? { cache: sessionCache } : {}),
  });

  // Caches fail open, on their own connections with a shorter command timeout: a slow or absent
  // cache store costs a request a quarter of a second at most, then it goes on uncached.
  const cacheHealth = createStoreHealth('caches', log);
  const cacheClients: Redis[] = [];
  let cacheStore: CacheStore;
  if (config.cacheRedisUrl) {
    const cacheRedis = createRedisClient({ url: config.cacheRedisUrl, health: cacheHealth, commandTimeoutMs: 250 });
    const subscriber = createRedisClient({ url: config.cacheRedisUrl, health: cacheHealth, commandTimeoutMs: 250 });
    cacheClients.push(cacheRedis, subscriber);
    await waitForReady(cacheRedis, 3_000);
    cacheStore = createRedisCacheStore({ redis: cacheRedis, subscriber });
  } else {
    cacheStore = createMemoryCacheStore();
  }
  const caches = createCaches({ config, store: cacheStore, key: credentialKey, health: cacheHealth, metrics, log, clock });

  const upstreamFetch = createUpstreamFetch({ timeoutMs: config.upstreamTimeoutMs, log, metrics });
  const serviceAccounts = createServiceAccounts({
    config, cipher, upstreams, upstreamFetch, log, metrics, clock,
    locks: caches.store,
    storeHealth: sessionStoreHealth,
    ...(redis ? { redis } : {}),
  });
  const rateLimitsFailClosed = redis ? createRedisRateLimitStore(redis, clock) : createMemoryRateLimitStore(clock);
  const rateLimits = failOpenRateLimit(rateLimitsFailClosed, (error) => sessionStoreHealth.failed(error), () => sessionStoreHealth.ok());

  const runtime: GatewayRuntime = {
    config, log, sessions, sessionStoreHealth, upstreams, clock, metrics, caches, upstreamFetch, serviceAccounts, rateLimits, rateLimitsFailClosed,
    front: { verified: createVerifiedCredentials(redis) },
    loginLimits: createLoginLimits({
      counters: rateLimitsFailClosed, accounts: redis ? createRedisAccountBackoff(redis, clock) : createMemoryAccountBackoff(clock),
      limits: config.limits, health: sessionStoreHealth, log, metrics,
    }),
    ...(redis ? { redis } : {}),
  };
  installRuntime(runtime);

  const artifacts = await loadMeshArtifacts();
  const meshOptions = await artifacts.getMeshOptions();
  meshOptions.logger = meshLogger(logger);
  // The handlers were given Mesh's console logger by the generated code: use ours instead.
  for (const source of meshOptions.sources) {
    const handler = source.handler as unknown as { logger?: unknown };
    if ('logger' in handler) handler.logger = meshLogger(logger, `mesh.${source.name}`);
  }
  const mesh = await getMesh(meshOptions);

  const schema = publicSchema(mesh.schema);
  const frontSchema = frontSchemaOf(schema);
  const yoga = createYoga({
    // Mesh's plugins (schema, execution, and ours from src/gateway/plugins.ts), then the public schema; the
    // drop-in front's requests get the upstream's schema (src/drop-in/front-schema.ts).
    plugins: [...mesh.plugins, useSchema(({ request }) => (stateOf(request)?.dropIn ? frontSchema : schema))],
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/__yoga_health',
    landingPage: false,
    maskedErrors: false,
    batching: false,
    // Parsed documents and parse errors bounded in (estimated) bytes, not only in count.
    parserAndValidationCache: createParseCaches(),
    // bodyLimit (below) already refused a body over the limit before Yoga sees the request: a
    // chunked one counted as it arrived, one with Content-Length by that (Node's parser never reads
    // past it). Yoga's own check would pipe every body through a TransformStream: 5-6 % of the
    // gateway's CPU per request.
    maxRequestBodySize: false,
    logging: meshLogger(logger, 'yoga'),
    // CORS only for ALLOWED_ORIGINS, with credentials; any other origin gets no CORS headers, so
    // browsers refuse its preflights (custom headers such as X-CSRF) and hide answers from it.
    cors: (request) => {
      const origin = request.headers.get('origin');
      if (origin === null || !config.allowedOrigins.includes(origin)) return false;
      return { origin: [origin], credentials: true, methods: ['GET', 'POST'], allowedHeaders: ['content-type', 'accept', 'x-csrf', 'x-request-id', 'traceparent', 'tracestate', 'baggage'], exposedHeaders: ['retry-after', 'x-request-id'], maxAge: 600 };
    },
    // Yoga's GraphiQL loads from a CDN: the gateway serves its own, outside production
    // (src/observability/graphiql, in the plugin list).
    graphiql: false,
  });

  // Every answer's headers and request id first (edge.ts), then the body limit, then Yoga.
  const listener = edge(config, bodyLimit({ maxBytes: config.limits.maxBodyBytes }, yoga.requestListener));
  const server: Server = createServer(listener);
  server.on('checkContinue', continueWithinLimit(config.limits.maxBodyBytes, listener));
  server.keepAliveTimeout = 65_000;
  // Slow clients: the headers within 10 s, the whole request within 30 s.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  const url = `http://${host}:${port}`;
  log.gatewayStarted({ url, sessionStore: store.kind, cacheStore: cacheStore.kind, serviceAccounts: serviceAccounts.count, upstreams: { sandbox: upstreams.sandbox.baseUrl, production: upstreams.production.baseUrl }, embedded: Boolean(embedded) });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      mesh.destroy();
      store.close?.();
      await sessionCache?.close();
      await caches.store.close();
      await redis?.quit().catch(() => redis?.disconnect());
      for (const client of cacheClients) await client.quit().catch(() => client.disconnect());
      await embedded?.close();
      installRuntime(undefined);
    })());

  return { url, runtime, ...(embedded ? { embedded } : {}), close };
}
