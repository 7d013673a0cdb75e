/**
 * The gateway's configuration: read from the environment and validated once, at start. A bad
 * value stops the start with a message naming the variable and what is wrong with it.
 */
import { z } from 'zod';
import { byteSize, checkInterval, credentialKey, duration, flag, integer, optionalInteger, origins, previousKeys, rate, sessionCacheTtl, shutdownDuration, upstreamUrl } from './fields';
import { egressProxyConfig, EGRESS_FIELDS, type EgressProxyConfig } from './egress';
import { nodeEnv, plainTransport, productionProblems, type ConfigProblem } from './production-guard';
import { redisUrl, type RedisTarget } from './redis-url';
import { FILE_VARIABLES, readSecretFiles } from './secret-files';
import type { CacheConfig, LimitsConfig, ShutdownConfig, TrustedDocumentsConfig, UpstreamSchemaCheckConfig } from './sections';
import { loadServiceAccounts, type ServiceAccountConfig } from './service-accounts';
import { loadTrustedDocuments, type TrustedDocument } from './trusted-documents';
import { tracingConfig, TRACING_FIELDS, type TracingConfig } from './tracing';
import type { Environment } from '../environment';

export type { ServiceAccountConfig } from './service-accounts';
export type { RedisNode, RedisTarget, RedisTopology } from './redis-url';
export type { TrustedDocument } from './trusted-documents';
export type { EgressProxyConfig } from './egress';
export type { CacheConfig, LimitsConfig, RateLimit, ShutdownConfig, TrustedDocumentsConfig, UpstreamSchemaCheckConfig } from './sections';

const schema = z
  .object({
    PORT: integer(4000, 0, 65_535),
    HOST: z.string().trim().min(1).default('127.0.0.1'),
    OPS_PORT: optionalInteger(0, 65_535),
    UPSTREAM_SANDBOX_URL: upstreamUrl('https://sandbox.example.com').optional(),
    UPSTREAM_PRODUCTION_URL: upstreamUrl('https://api.example.com').optional(),
    REDIS_URL: redisUrl,
    CACHE_REDIS_URL: redisUrl,
    SERVICE_ACCOUNTS_FILE: z.string().trim().min(1).optional(),
    TRUSTED_DOCUMENTS_FILE: z.string().trim().min(1).optional(),
    TRUSTED_DOCUMENTS_ONLY: flag,
    FAST_PATH: flag,
    HOT_PATH: flag,
    ALLOWED_ORIGINS: origins,
    COOKIE_SECURE: flag,
    SESSION_IDLE_TIMEOUT: duration('30m'),
    SESSION_ABSOLUTE_TIMEOUT: duration('8h'),
    SESSION_CACHE_TTL: sessionCacheTtl,
    SESSION_MAX_PER_USER: integer(10, 1, 1_000),
    CREDENTIAL_KEY: credentialKey,
    CREDENTIAL_KEY_PREVIOUS: previousKeys,
    UPSTREAM_TIMEOUT_MS: integer(10_000, 1, 600_000),
    UPSTREAM_RETRIES: integer(1, 0, 5),
    UPSTREAM_CIRCUIT_FAILURES: integer(10, 1, 10_000),
    UPSTREAM_CIRCUIT_COOLDOWN: duration('10s'),
    UPSTREAM_SCHEMA_CHECK_INTERVAL: checkInterval('1h'),
    IDEMPOTENCY_TTL: duration('24h'),
    IDEMPOTENCY_MAX_BYTES: byteSize('4MiB', 1024, 1024 * 1024 * 1024),
    TRUST_PROXY: integer(0, 0, 32),
    CACHE_DEFINITIONS_FRESH: duration('1h'),
    CACHE_DEFINITIONS_STALE_IF_ERROR: duration('24h'),
    CACHE_READS_TTL: duration('60s'),
    CACHE_PDF_TTL: duration('24h'),
    CACHE_PDF_MAX_BYTES: integer(2 * 1024 * 1024, 0, 512 * 1024 * 1024),
    RATE_LIMIT_LOGIN: rate('5/15m'),
    RATE_LIMIT_LOGIN_ADDRESS: rate('30/1m'),
    RATE_LIMIT_LOGIN_ACCOUNT: rate('10/15m'),
    RATE_LIMIT_SESSION: rate('600/1m'),
    RATE_LIMIT_ANONYMOUS: rate('30/1m'),
    MAX_BODY_BYTES: integer(1024 * 1024, 1024, 64 * 1024 * 1024),
    MAX_QUERY_BYTES: integer(128 * 1024, 1024, 16 * 1024 * 1024),
    GRAPHQL_INTROSPECTION: flag,
    OPS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters (openssl rand -hex 24)').optional(),
    SHUTDOWN_DELAY: shutdownDuration('5s'),
    SHUTDOWN_TIMEOUT: shutdownDuration('15s'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ALLOW_INSECURE_TRANSPORT: flag,
    NODE_ENV: nodeEnv,
    ...TRACING_FIELDS,
    ...EGRESS_FIELDS,
  })
  .superRefine((env, ctx) => {
    // One real upstream beside a built-in emulator would be a silent trap (an emulated "production").
    if (Boolean(env.UPSTREAM_SANDBOX_URL) !== Boolean(env.UPSTREAM_PRODUCTION_URL)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.UPSTREAM_SANDBOX_URL ? 'UPSTREAM_PRODUCTION_URL' : 'UPSTREAM_SANDBOX_URL'],
        message: 'set both upstream URLs, or neither (the built-in emulator then serves both)',
      });
    }
    // One port for both would put /metrics and /ops/ back on the traffic port.
    if (env.OPS_PORT !== undefined && env.OPS_PORT !== 0 && env.OPS_PORT === env.PORT) {
      ctx.addIssue({ code: 'custom', path: ['OPS_PORT'], message: 'must not be PORT: the operator endpoints need a listener of their own' });
    }
    if (env.CREDENTIAL_KEY_PREVIOUS.length && !env.CREDENTIAL_KEY) {
      ctx.addIssue({ code: 'custom', path: ['CREDENTIAL_KEY_PREVIOUS'], message: 'needs CREDENTIAL_KEY (the new key) beside it' });
    }
    if (env.TRUSTED_DOCUMENTS_ONLY && !env.TRUSTED_DOCUMENTS_FILE) {
      ctx.addIssue({ code: 'custom', path: ['TRUSTED_DOCUMENTS_ONLY'], message: 'needs TRUSTED_DOCUMENTS_FILE: without documents, every browser request would be refused' });
    }
    for (const problem of productionProblems(env)) ctx.addIssue({ code: 'custom', path: [problem.variable], message: problem.message });
    if (env.REDIS_URL && !env.CREDENTIAL_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['CREDENTIAL_KEY'],
        message: 'is required with REDIS_URL: replicas share the encrypted credentials (openssl rand -base64 32)',
      });
    } else if (env.CACHE_REDIS_URL && !env.CREDENTIAL_KEY) {
      // Cached statements are sealed with a key derived from it: one per process would make every
      // replica's entries unreadable to the others (all misses, silently).
      ctx.addIssue({
        code: 'custom',
        path: ['CREDENTIAL_KEY'],
        message: 'is required with CACHE_REDIS_URL: replicas share the encrypted cache entries (openssl rand -base64 32)',
      });
    }
  });

const SCHEMA_VARIABLES = Object.keys(schema.innerType().shape);
/** Every variable the gateway reads (the service-account password variables aside). */
export const CONFIG_VARIABLES: readonly string[] = [...SCHEMA_VARIABLES, ...FILE_VARIABLES];

export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  /**
   * OPS_PORT: a second listener on `host` for the probes, /metrics and /ops/, which `port` then no
   * longer serves (but the probes); undefined: all of them on `port`.
   */
  readonly opsPort?: number;
  /** Base URLs per environment; undefined means "start the built-in emulator". */
  readonly upstreamUrls: Readonly<Record<Environment, string | undefined>>;
  /** REDIS_URL: sessions, credentials, rate limits (and the caches without CACHE_REDIS_URL). */
  readonly redis?: RedisTarget;
  /** CACHE_REDIS_URL, else REDIS_URL: the caches and their locks. */
  readonly cacheRedis?: RedisTarget;
  /** From SERVICE_ACCOUNTS_FILE (empty without it). */
  readonly serviceAccounts: readonly ServiceAccountConfig[];
  /** Browser origins allowed to call with a cookie, besides the gateway's own. */
  readonly allowedOrigins: readonly string[];
  /** Secure + `__Host-` cookie. Default true, except on the built-in emulator (plain http on loopback). */
  readonly cookieSecure: boolean;
  readonly sessionIdleMs: number;
  readonly sessionAbsoluteMs: number;
  /**
   * How long a replica may reuse a resolved session without asking the store (0: never; Redis
   * only): SESSION_CACHE_TTL, never more than a quarter of the idle timeout.
   */
  readonly sessionCacheMs: number;
  /** SESSION_MAX_PER_USER: live browser sessions per upstream user; a login beyond it ends the least recently used. */
  readonly sessionMaxPerUser: number;
  /** How long a service account's sign-in may hold its lock: the upstream timeout and a second. */
  readonly serviceAccountLockMs: number;
  /** AES-256-GCM key for credentials at rest; undefined: generated per process (in-memory store only). */
  readonly credentialKey?: Buffer;
  /** Keys being rotated out: credentials sealed with them still open; new ones use `credentialKey`. */
  readonly previousCredentialKeys: readonly Buffer[];
  readonly upstreamTimeoutMs: number;
  /** Retries of calls safe to repeat, and each environment's circuit (src/upstream/resilience.ts). */
  readonly upstreamResilience: { readonly retries: number; readonly circuitFailures: number; readonly circuitCooldownMs: number };
  /** How long an Idempotency-Key and the answer it got are kept, and how many bytes of kept answers one identity may hold. */
  readonly idempotency: { readonly ttlMs: number; readonly maxBytes: number };
  readonly trustProxy: number;
  readonly cache: CacheConfig;
  readonly limits: LimitsConfig;
  readonly trustedDocuments: TrustedDocumentsConfig;
  readonly upstreamSchemaCheck: UpstreamSchemaCheckConfig;
  /**
   * FAST_PATH (default true): upstream-only operations are sent upstream as one call instead of
   * through Mesh's delegation (src/fast-path/). false is the way back if the fast path misbehaves.
   */
  readonly fastPath: boolean;
  /** HOT_PATH (default true; with FAST_PATH, without tracing): src/hot-path/hot-path.ts. false is the way back. */
  readonly hotPath: boolean;
  readonly logLevel: string;
  readonly production: boolean;
  /**
   * With NODE_ENV=production and ALLOW_INSECURE_TRANSPORT=true: the variables whose plain transport
   * (an http:// upstream, Redis without TLS) it let through, logged once at start. Empty otherwise.
   */
  readonly insecureTransport: readonly string[];
  /**
   * The `/ops` page's token (HTTP Basic password or Bearer). Without one the page answers loopback
   * clients only.
   */
  readonly opsToken?: string;
  readonly shutdown: ShutdownConfig;
  readonly tracing?: TracingConfig; // OTEL_* (./tracing.ts): undefined without an endpoint, no tracing
  /** HTTPS_PROXY, HTTP_PROXY, NO_PROXY (./egress.ts): undefined without a proxy, egress unchanged. */
  readonly egressProxy?: EgressProxyConfig;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Validates the environment; throws a ConfigError whose message names every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const blank = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value);
  const secrets = readSecretFiles(env);
  const fromFiles: Readonly<Record<string, string | undefined>> = secrets.values;
  const input = Object.fromEntries(SCHEMA_VARIABLES.map((name) => [name, blank(fromFiles[name] ?? env[name])]));
  const parsed = schema.safeParse(input);
  // A file's problem comes first, and the problems it causes (a key missing beside REDIS_URL) are
  // left out: they would send the reader after the wrong variable.
  const problems: ConfigProblem[] = [
    ...secrets.problems,
    ...(parsed.success ? [] : parsed.error.issues)
      .map((issue) => ({ variable: issue.path.map(String).join('.'), message: issue.message }))
      .filter((problem) => !secrets.failed.has(problem.variable)),
  ];
  if (!parsed.success || problems.length) {
    const named = (variable: string) => (variable in fromFiles ? `${variable} (from ${variable}_FILE)` : variable || '(environment)');
    throw new ConfigError(`Invalid configuration:\n${problems.map((problem) => `  ${named(problem.variable)}: ${problem.message}`).join('\n')}`);
  }
  const e = parsed.data;
  let serviceAccounts: ServiceAccountConfig[] = [];
  if (e.SERVICE_ACCOUNTS_FILE) {
    const loaded = loadServiceAccounts(e.SERVICE_ACCOUNTS_FILE, env);
    if ('problems' in loaded) {
      throw new ConfigError(`Invalid configuration:\n${loaded.problems.map((problem) => `  SERVICE_ACCOUNTS_FILE: ${problem}`).join('\n')}`);
    }
    serviceAccounts = loaded.accounts;
  }
  let trustedDocuments: ReadonlyMap<string, TrustedDocument> = new Map();
  if (e.TRUSTED_DOCUMENTS_FILE) {
    const loaded = loadTrustedDocuments(e.TRUSTED_DOCUMENTS_FILE);
    if ('problems' in loaded) {
      throw new ConfigError(`Invalid configuration:\n${loaded.problems.map((problem) => `  TRUSTED_DOCUMENTS_FILE: ${problem}`).join('\n')}`);
    }
    trustedDocuments = loaded.documents;
  }
  const embedded = !e.UPSTREAM_SANDBOX_URL;
  const trim = (value: string | undefined) => value?.replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    opsPort: e.OPS_PORT,
    upstreamUrls: { sandbox: trim(e.UPSTREAM_SANDBOX_URL), production: trim(e.UPSTREAM_PRODUCTION_URL) },
    redis: e.REDIS_URL,
    cacheRedis: e.CACHE_REDIS_URL ?? e.REDIS_URL,
    serviceAccounts,
    allowedOrigins: e.ALLOWED_ORIGINS,
    cookieSecure: e.COOKIE_SECURE ?? !embedded,
    sessionIdleMs: e.SESSION_IDLE_TIMEOUT,
    sessionAbsoluteMs: e.SESSION_ABSOLUTE_TIMEOUT,
    sessionCacheMs: Math.min(e.SESSION_CACHE_TTL, Math.floor(e.SESSION_IDLE_TIMEOUT / 4)),
    sessionMaxPerUser: e.SESSION_MAX_PER_USER,
    serviceAccountLockMs: e.UPSTREAM_TIMEOUT_MS + 1_000,
    credentialKey: e.CREDENTIAL_KEY,
    previousCredentialKeys: e.CREDENTIAL_KEY_PREVIOUS,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    upstreamResilience: { retries: e.UPSTREAM_RETRIES, circuitFailures: e.UPSTREAM_CIRCUIT_FAILURES, circuitCooldownMs: e.UPSTREAM_CIRCUIT_COOLDOWN },
    idempotency: { ttlMs: e.IDEMPOTENCY_TTL, maxBytes: e.IDEMPOTENCY_MAX_BYTES },
    trustProxy: e.TRUST_PROXY,
    cache: {
      definitionsFreshMs: e.CACHE_DEFINITIONS_FRESH,
      definitionsStaleIfErrorMs: e.CACHE_DEFINITIONS_STALE_IF_ERROR,
      readsTtlMs: e.CACHE_READS_TTL,
      pdfTtlMs: e.CACHE_PDF_TTL,
      pdfMaxBytes: e.CACHE_PDF_MAX_BYTES,
    },
    limits: {
      login: e.RATE_LIMIT_LOGIN,
      loginPerAddress: e.RATE_LIMIT_LOGIN_ADDRESS,
      loginPerAccount: e.RATE_LIMIT_LOGIN_ACCOUNT,
      session: e.RATE_LIMIT_SESSION,
      anonymous: e.RATE_LIMIT_ANONYMOUS,
      maxBodyBytes: e.MAX_BODY_BYTES,
      maxQueryBytes: e.MAX_QUERY_BYTES,
      introspection: e.GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== 'production',
    },
    trustedDocuments: { documents: trustedDocuments, only: e.TRUSTED_DOCUMENTS_ONLY ?? false },
    upstreamSchemaCheck: { intervalMs: e.UPSTREAM_SCHEMA_CHECK_INTERVAL },
    fastPath: e.FAST_PATH ?? true,
    hotPath: e.HOT_PATH ?? true,
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
    insecureTransport: e.ALLOW_INSECURE_TRANSPORT ? plainTransport(e).map((plain) => plain.variable) : [],
    opsToken: e.OPS_TOKEN,
    shutdown: { delayMs: e.SHUTDOWN_DELAY, timeoutMs: e.SHUTDOWN_TIMEOUT }, tracing: tracingConfig(e), egressProxy: egressProxyConfig(e),
  };
}
