/**
 * The gateway's configuration: read from the environment and validated once, at start. A bad
 * value stops the start with a message naming the variable and what is wrong with it.
 */
import { z } from 'zod';
import { parseDuration } from './duration';
import { loadServiceAccounts, type ServiceAccountConfig } from './service-accounts';

export type { ServiceAccountConfig } from './service-accounts';

const url = (protocols: readonly string[], example: string) =>
  z
    .string()
    .trim()
    .refine((value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, `expected a ${protocols.join(' or ')} URL such as ${example}`);

/** Upstream URLs are logged at start: they must not carry a user or password. */
const upstreamUrl = (example: string) =>
  url(['http:', 'https:'], example).refine((value) => {
    const parsed = new URL(value);
    return !parsed.username && !parsed.password;
  }, 'must not contain a user name or password');

/** The session cache's life: 0 turns it off; at most a second (logout must reach every replica within one). */
const sessionCacheTtl = z
  .string()
  .default('1s')
  .transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined || ms > 1_000) {
      ctx.addIssue({ code: 'custom', message: 'expected a duration from 0 to 1s, such as 500ms (0 turns the cache off)' });
      return z.NEVER;
    }
    return ms;
  });

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined || ms <= 0) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration such as 90s, 30m or 8h' });
        return z.NEVER;
      }
      return ms;
    });

const integer = (fallback: number, min: number, max: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((text, ctx) => {
      const value = Number(text);
      if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
        ctx.addIssue({ code: 'custom', message: `expected an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return value;
    });

/** A rate such as `5/15m`: at most 5 in any 15 minutes. */
const rate = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const match = /^\s*(\d+)\s*\/\s*(\S+)\s*$/.exec(text);
      const max = Number(match?.[1]);
      const windowMs = match?.[2] ? parseDuration(match[2]) : undefined;
      if (!match || !Number.isSafeInteger(max) || max < 1 || windowMs === undefined || windowMs < 1_000) {
        ctx.addIssue({ code: 'custom', message: 'expected a count and a window of at least 1s, such as 5/15m or 600/1m' });
        return z.NEVER;
      }
      return { max, windowMs };
    });

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
  .transform((text) => ['true', '1', 'yes'].includes(text))
  .optional();

const origins = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const list = (text ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    for (const entry of list) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(entry);
      } catch {
        parsed = undefined;
      }
      if (!parsed || parsed.origin !== entry.replace(/\/$/, '')) {
        ctx.addIssue({ code: 'custom', message: `"${entry}" is not an origin such as https://app.example.com` });
        return z.NEVER;
      }
    }
    return list.map((entry) => new URL(entry).origin);
  });

/** 32 bytes in base64, exactly (Buffer.from skips characters outside the alphabet). */
function parseKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== 32 || key.toString('base64') !== trimmed || key.every((byte) => byte === 0)) return undefined;
  return key;
}

const credentialKey = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text === '') return undefined;
    const key = parseKey(text);
    if (!key) {
      ctx.addIssue({ code: 'custom', message: 'expected 32 bytes in base64 (openssl rand -base64 32)' });
      return z.NEVER;
    }
    return key;
  });

const previousKeys = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text === '') return [];
    const keys = text.split(',').map((entry) => parseKey(entry));
    const bad = keys.findIndex((key) => !key);
    if (bad >= 0) {
      ctx.addIssue({ code: 'custom', message: `entry ${bad + 1}: expected comma-separated keys of 32 bytes in base64` });
      return z.NEVER;
    }
    return keys.filter((key): key is Buffer => key !== undefined);
  });

const schema = z
  .object({
    PORT: integer(4000, 0, 65_535),
    HOST: z.string().trim().min(1).default('127.0.0.1'),
    UPSTREAM_SANDBOX_URL: upstreamUrl('https://sandbox.example.com').optional(),
    UPSTREAM_PRODUCTION_URL: upstreamUrl('https://api.example.com').optional(),
    REDIS_URL: url(['redis:', 'rediss:'], 'redis://127.0.0.1:6379').optional(),
    CACHE_REDIS_URL: url(['redis:', 'rediss:'], 'redis://127.0.0.1:6380').optional(),
    SERVICE_ACCOUNTS_FILE: z.string().trim().min(1).optional(),
    ALLOWED_ORIGINS: origins,
    COOKIE_SECURE: flag,
    SESSION_IDLE_TIMEOUT: duration('30m'),
    SESSION_ABSOLUTE_TIMEOUT: duration('8h'),
    SESSION_CACHE_TTL: sessionCacheTtl,
    CREDENTIAL_KEY: credentialKey,
    CREDENTIAL_KEY_PREVIOUS: previousKeys,
    UPSTREAM_TIMEOUT_MS: integer(10_000, 1, 600_000),
    TRUST_PROXY: integer(0, 0, 32),
    CACHE_DEFINITIONS_FRESH: duration('1h'),
    CACHE_DEFINITIONS_STALE_IF_ERROR: duration('24h'),
    CACHE_READS_TTL: duration('60s'),
    CACHE_PDF_TTL: duration('24h'),
    CACHE_PDF_MAX_BYTES: integer(2 * 1024 * 1024, 0, 512 * 1024 * 1024),
    RATE_LIMIT_LOGIN: rate('5/15m'),
    RATE_LIMIT_LOGIN_ADDRESS: rate('30/1m'),
    RATE_LIMIT_SESSION: rate('600/1m'),
    MAX_BODY_BYTES: integer(1024 * 1024, 1024, 64 * 1024 * 1024),
    GRAPHQL_INTROSPECTION: flag,
    OPS_TOKEN: z.string().trim().min(16, 'must be at least 16 characters (openssl rand -hex 24)').optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    NODE_ENV: z.string().default('development'),
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
    if (env.REDIS_URL && !env.CREDENTIAL_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['CREDENTIAL_KEY'],
        message: 'is required with REDIS_URL: replicas share the encrypted credentials (openssl rand -base64 32)',
      });
    }
  });

/** Every variable the gateway reads (the service-account password variables aside). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.innerType().shape);

export type Environment = 'sandbox' | 'production';
export const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];

export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  /** Base URLs per environment; undefined means "start the built-in emulator". */
  readonly upstreamUrls: Readonly<Record<Environment, string | undefined>>;
  readonly redisUrl?: string;
  readonly cacheRedisUrl?: string;
  /** From SERVICE_ACCOUNTS_FILE (empty without it). */
  readonly serviceAccounts: readonly ServiceAccountConfig[];
  /** Browser origins allowed to call with a cookie, besides the gateway's own. */
  readonly allowedOrigins: readonly string[];
  /** Secure + `__Host-` cookie. Default true, except on the built-in emulator (plain http on loopback). */
  readonly cookieSecure: boolean;
  readonly sessionIdleMs: number;
  readonly sessionAbsoluteMs: number;
  /** How long a replica may reuse a resolved session without asking the store (0: never; Redis only). */
  readonly sessionCacheMs: number;
  /** AES-256-GCM key for credentials at rest; undefined: generated per process (in-memory store only). */
  readonly credentialKey?: Buffer;
  /** Keys being rotated out: credentials sealed with them still open; new ones use `credentialKey`. */
  readonly previousCredentialKeys: readonly Buffer[];
  readonly upstreamTimeoutMs: number;
  readonly trustProxy: number;
  readonly cache: CacheConfig;
  readonly limits: LimitsConfig;
  readonly logLevel: string;
  readonly production: boolean;
  /**
   * The `/ops` page's token (HTTP Basic password or Bearer). Without one the page answers loopback
   * clients only.
   */
  readonly opsToken?: string;
}

export interface RateLimit {
  readonly max: number;
  readonly windowMs: number;
}

export interface LimitsConfig {
  /** `login` per client address and e-mail (brute force on one account). */
  readonly login: RateLimit;
  /** `login` per client address, whatever the e-mail (credential stuffing). */
  readonly loginPerAddress: RateLimit;
  /** Root fields per browser session. */
  readonly session: RateLimit;
  /** Request bodies larger than this are refused with 413. */
  readonly maxBodyBytes: number;
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
  const embedded = !e.UPSTREAM_SANDBOX_URL;
  const trim = (value: string | undefined) => value?.replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    upstreamUrls: { sandbox: trim(e.UPSTREAM_SANDBOX_URL), production: trim(e.UPSTREAM_PRODUCTION_URL) },
    redisUrl: e.REDIS_URL,
    cacheRedisUrl: e.CACHE_REDIS_URL ?? e.REDIS_URL,
    serviceAccounts,
    allowedOrigins: e.ALLOWED_ORIGINS,
    cookieSecure: e.COOKIE_SECURE ?? !embedded,
    sessionIdleMs: e.SESSION_IDLE_TIMEOUT,
    sessionAbsoluteMs: e.SESSION_ABSOLUTE_TIMEOUT,
    sessionCacheMs: e.SESSION_CACHE_TTL,
    credentialKey: e.CREDENTIAL_KEY,
    previousCredentialKeys: e.CREDENTIAL_KEY_PREVIOUS,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
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
      session: e.RATE_LIMIT_SESSION,
      maxBodyBytes: e.MAX_BODY_BYTES,
      introspection: e.GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== 'production',
    },
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
    opsToken: e.OPS_TOKEN,
  };
}
