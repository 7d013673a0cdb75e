/**
 * The gateway's configuration: read from the environment and validated once, at start. A bad
 * value stops the start with a message naming the variable and what is wrong with it.
 */
import { z } from 'zod';
import { byteSize, credentialKey, duration, flag, integer, origins, previousKeys, rate, sessionCacheTtl, shutdownDuration, upstreamUrl } from './fields';
import { nodeEnv, plainTransport, productionProblems } from './production-guard';
import { redisUrl, type RedisTarget } from './redis-url';
import { loadServiceAccounts, type ServiceAccountConfig } from './service-accounts';
import { loadTrustedDocuments, type TrustedDocument } from './trusted-documents';
import { tracingConfig, TRACING_FIELDS, type TracingConfig } from './tracing';
import type { Environment } from '../environment';

export type { ServiceAccountConfig } from './service-accounts';
export type { RedisNode, RedisTarget, RedisTopology } from './redis-url';
export type { TrustedDocument } from './trusted-documents';

const schema = z
  .object({
    PORT: integer(4000, 0, 65_535),
    HOST: z.string().trim().min(1).default('127.0.0.1'),
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
    CREDENTIAL_KEY: credentialKey,
    CREDENTIAL_KEY_PREVIOUS: previousKeys,
    UPSTREAM_TIMEOUT_MS: integer(10_000, 1, 600_000),
    UPSTREAM_RETRIES: integer(1, 0, 5),
    UPSTREAM_CIRCUIT_FAILURES: integer(10, 1, 10_000),
    UPSTREAM_CIRCUIT_COOLDOWN: duration('10s'),
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

/** Every variable the gateway reads (the service-account password variables aside). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.innerType().shape);

export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
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
  /**
   * FAST_PATH (default true): upstream-only operations are sent upstream as one call instead of
   * through Mesh's delegation (src/fast-path/). false is the way back if the fast path misbehaves.
   */
  readonly fastPath: boolean;
  /** HOT_PATH (default true; with FAST_PATH, without tracing): src/http/hot-path.ts. false is the way back. */
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
}

/** What SIGTERM does: src/gateway/drain.ts. */
export interface ShutdownConfig {
  /** SHUTDOWN_DELAY: every request still served while /readiness already answers 503, so load balancers stop sending first. */
  readonly delayMs: number;
  /** SHUTDOWN_TIMEOUT: then, how long requests in flight may finish before their connections are closed. */
  readonly timeoutMs: number;
}

export interface RateLimit {
  readonly max: number;
  readonly windowMs: number;
}

export interface LimitsConfig {
  /** Failed `login`s per client address and e-mail (brute force on one account); a success resets it. */
  readonly login: RateLimit;
  /** `login` per client address, whatever the e-mail (credential stuffing). */
  readonly loginPerAddress: RateLimit;
  /**
   * Failed logins per e-mail from any address (a distributed guess at one account). Over it,
   * refusals back off from 1 s, doubling up to 15 min, until a successful login: never a lock.
   */
  readonly loginPerAccount: RateLimit;
  /** Root fields per identity (browser session, drop-in credential), counted in total. */
  readonly session: RateLimit;
  /** Operations without an identity (`confirmRegistration`, ...) per client address: guessing tokens. */
  readonly anonymous: RateLimit;
  /** Request bodies larger than this are refused with 413. */
  readonly maxBodyBytes: number;
  /** Longer query texts are QUERY_TOO_COMPLEX before parsing (variables carry bulk data). */
  readonly maxQueryBytes: number;
  /** Schema introspection (`__schema`, `__type`); default off in production. */
  readonly introspection: boolean;
}

export interface CacheConfig {
  /** statementDefinitions: answered from the cache without asking the upstream for this long. */
  readonly definitionsFreshMs: number;
  /** After that, served stale (and refreshed in the background) for this long while the upstream fails. */
  readonly definitionsStaleIfErrorMs: number;
  /** Statement reads without `pdf`, per identity. */
  readonly readsTtlMs: number;
  /** PDFs, per identity and statement. */
  readonly pdfTtlMs: number;
  /** Larger PDFs are not stored (0: no PDF is stored). */
  readonly pdfMaxBytes: number;
}

export interface TrustedDocumentsConfig {
  /** TRUSTED_DOCUMENTS_FILE's documents by SHA-256 (lowercase hex), parsed; empty without it. */
  readonly documents: ReadonlyMap<string, TrustedDocument>;
  /**
   * TRUSTED_DOCUMENTS_ONLY: browser sessions and anonymous callers may send only known documents,
   * never a query text, so that no document the frontend does not send is parsed, validated or run
   * for them (crafted queries, schema probing, denial of service by expensive documents).
   */
  readonly only: boolean;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Validates the environment; throws a ConfigError whose message names every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const blank = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value);
  const input = Object.fromEntries(Object.keys(schema.innerType().shape).map((name) => [name, blank(env[name])]));
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
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
    upstreamUrls: { sandbox: trim(e.UPSTREAM_SANDBOX_URL), production: trim(e.UPSTREAM_PRODUCTION_URL) },
    redis: e.REDIS_URL,
    cacheRedis: e.CACHE_REDIS_URL ?? e.REDIS_URL,
    serviceAccounts,
    allowedOrigins: e.ALLOWED_ORIGINS,
    cookieSecure: e.COOKIE_SECURE ?? !embedded,
    sessionIdleMs: e.SESSION_IDLE_TIMEOUT,
    sessionAbsoluteMs: e.SESSION_ABSOLUTE_TIMEOUT,
    sessionCacheMs: Math.min(e.SESSION_CACHE_TTL, Math.floor(e.SESSION_IDLE_TIMEOUT / 4)),
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
    fastPath: e.FAST_PATH ?? true,
    hotPath: e.HOT_PATH ?? true,
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
    insecureTransport: e.ALLOW_INSECURE_TRANSPORT ? plainTransport(e).map((plain) => plain.variable) : [],
    opsToken: e.OPS_TOKEN,
    shutdown: { delayMs: e.SHUTDOWN_DELAY, timeoutMs: e.SHUTDOWN_TIMEOUT }, tracing: tracingConfig(e),
  };
}
