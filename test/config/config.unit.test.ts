import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/config/duration';
import { ConfigError, loadConfig } from '../../src/config/index';
import { configRefusal } from '../support/config';

const KEY = randomBytes(32).toString('base64');

const refusal = configRefusal;

describe('loadConfig', () => {
  it('applies the defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(4000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.sessionIdleMs).toBe(1_800_000);
    expect(config.sessionAbsoluteMs).toBe(8 * 3_600_000);
    expect(config.sessionCacheMs).toBe(1_000);
    expect(config.upstreamTimeoutMs).toBe(10_000);
    expect(config.trustProxy).toBe(0);
    expect(config.allowedOrigins).toEqual([]);
    expect(config.upstreamUrls).toEqual({ sandbox: undefined, production: undefined });
    expect(config.redis).toBeUndefined();
    expect(config.credentialKey).toBeUndefined();
    expect(config.production).toBe(false);
  });

  it('reads SESSION_MAX_PER_USER, 10 by default, refusing anything but 1 to 1000 sessions', () => {
    expect(loadConfig({}).sessionMaxPerUser).toBe(10);
    expect(loadConfig({ SESSION_MAX_PER_USER: '3' }).sessionMaxPerUser).toBe(3);
    for (const value of ['0', '1001', 'ten', '2.5']) expect(refusal({ SESSION_MAX_PER_USER: value }).message).toContain('SESSION_MAX_PER_USER');
  });

  it('reads the retries, the circuit and the idempotency TTL, with the contract\'s defaults', () => {
    expect(loadConfig({})).toMatchObject({ upstreamResilience: { retries: 1, circuitFailures: 10, circuitCooldownMs: 10_000 }, idempotency: { ttlMs: 24 * 3_600_000, maxBytes: 4 * 1024 * 1024 } });
    expect(loadConfig({ UPSTREAM_RETRIES: '0', UPSTREAM_CIRCUIT_FAILURES: '3', UPSTREAM_CIRCUIT_COOLDOWN: '30s', IDEMPOTENCY_TTL: '1h', IDEMPOTENCY_MAX_BYTES: '512KiB' }))
      .toMatchObject({ upstreamResilience: { retries: 0, circuitFailures: 3, circuitCooldownMs: 30_000 }, idempotency: { ttlMs: 3_600_000, maxBytes: 512 * 1024 } });
    expect(loadConfig({ IDEMPOTENCY_MAX_BYTES: '2097152' }).idempotency.maxBytes).toBe(2 * 1024 * 1024);
    const message = refusal({ UPSTREAM_RETRIES: '9', UPSTREAM_CIRCUIT_FAILURES: '0', IDEMPOTENCY_TTL: 'forever', IDEMPOTENCY_MAX_BYTES: '4MB' }).message;
    for (const variable of ['UPSTREAM_RETRIES', 'UPSTREAM_CIRCUIT_FAILURES', 'IDEMPOTENCY_TTL', 'IDEMPOTENCY_MAX_BYTES']) expect(message).toContain(variable);
  });

  it('reads UPSTREAM_SCHEMA_CHECK_INTERVAL, 1h by default and 0 for off, refusing under a second or over a week', () => {
    expect(loadConfig({}).upstreamSchemaCheck).toEqual({ intervalMs: 3_600_000 });
    expect(loadConfig({ UPSTREAM_SCHEMA_CHECK_INTERVAL: '0' }).upstreamSchemaCheck.intervalMs).toBe(0);
    expect(loadConfig({ UPSTREAM_SCHEMA_CHECK_INTERVAL: '30m' }).upstreamSchemaCheck.intervalMs).toBe(1_800_000);
    for (const value of ['500ms', '8d', 'hourly', '-1h']) expect(refusal({ UPSTREAM_SCHEMA_CHECK_INTERVAL: value }).message, value).toContain('UPSTREAM_SCHEMA_CHECK_INTERVAL: expected 0 (off) or a duration from 1s to 7d');
  });

  it('treats blank variables as unset', () => {
    expect(loadConfig({ PORT: '', HOST: '  ', SESSION_IDLE_TIMEOUT: '' })).toMatchObject({ port: 4000, host: '127.0.0.1', sessionIdleMs: 1_800_000 });
  });

  it('makes the cookie not Secure when no upstream URLs are set', () => {
    expect(loadConfig({}).cookieSecure).toBe(false);
  });

  it('refuses one upstream URL without the other, naming the missing one', () => {
    expect(refusal({ UPSTREAM_SANDBOX_URL: 'https://sandbox.example.com' }).message).toContain('UPSTREAM_PRODUCTION_URL');
    expect(refusal({ UPSTREAM_PRODUCTION_URL: 'https://api.example.com' }).message).toContain('UPSTREAM_SANDBOX_URL');
  });

  it('refuses an upstream URL with a user name or password (it is logged at start)', () => {
    expect(refusal({ UPSTREAM_SANDBOX_URL: 'https://user:secret@sandbox.example.com', UPSTREAM_PRODUCTION_URL: 'https://api.example.com' }).message).toContain('UPSTREAM_SANDBOX_URL');
  });

  describe('SERVICE_ACCOUNTS_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sgw-accounts-'));
    const hash = createHash('sha256').update('the-api-key').digest('hex');
    const account = { name: 'billing-export', apiKeySha256: hash, email: 'billing@example.com', passwordEnv: 'BILLING_PASSWORD', environment: 'sandbox', requestsPerMinute: 600 };
    const file = (name: string, content: unknown) => {
      const target = join(dir, name);
      writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
      return target;
    };

    it('loads the accounts, keeping the key only as its digest and the password from the named variable', () => {
      const config = loadConfig({ SERVICE_ACCOUNTS_FILE: file('ok.json', [account]), BILLING_PASSWORD: 'secret-password-123456' });
      expect(config.serviceAccounts).toHaveLength(1);
      expect(config.serviceAccounts[0]).toMatchObject({ name: 'billing-export', email: 'billing@example.com', password: 'secret-password-123456', environment: 'sandbox', requestsPerMinute: 600 });
      expect(config.serviceAccounts[0]?.apiKeySha256.toString('hex')).toBe(hash);
      expect(JSON.stringify(config.serviceAccounts)).not.toContain('the-api-key');
    });

    it.each([
      ['a missing file', () => join(dir, 'absent.json'), 'cannot read'],
      ['malformed JSON', () => file('bad.json', '[{'), 'not valid JSON'],
      ['an object instead of a list', () => file('object.json', account), 'JSON array'],
      ['a key that is not a SHA-256', () => file('key.json', [{ ...account, apiKeySha256: 'abc' }]), 'apiKeySha256'],
      ['an unknown environment', () => file('env.json', [{ ...account, environment: 'staging' }]), 'environment'],
      ['a zero rate', () => file('rate.json', [{ ...account, requestsPerMinute: 0 }]), 'requestsPerMinute'],
      ['an unknown field', () => file('extra.json', [{ ...account, apiKey: 'plain' }]), 'apiKey'],
      ['a duplicate name', () => file('dup.json', [account, { ...account, apiKeySha256: 'f'.repeat(64) }]), 'used twice'],
      ['a duplicate key', () => file('dupkey.json', [account, { ...account, name: 'other' }]), 'same apiKeySha256'],
    ])('stops the start on %s, naming the variable', (_case, path, fragment) => {
      const message = refusal({ SERVICE_ACCOUNTS_FILE: path(), BILLING_PASSWORD: 'secret-password-123456' }).message;
      expect(message).toContain('SERVICE_ACCOUNTS_FILE');
      expect(message).toContain(fragment);
      expect(message).not.toContain('secret-password-123456');
    });

    it('stops the start when the password variable is missing, naming it but no secret', () => {
      const message = refusal({ SERVICE_ACCOUNTS_FILE: file('nopw.json', [account]) }).message;
      expect(message).toContain('BILLING_PASSWORD');
      expect(message).toContain('billing-export');
    });
  });

  it('makes the cookie Secure when both upstream URLs are set', () => {
    const config = loadConfig({ UPSTREAM_SANDBOX_URL: 'https://sandbox.example.com/', UPSTREAM_PRODUCTION_URL: 'https://api.example.com' });
    expect(config.cookieSecure).toBe(true);
    expect(config.upstreamUrls).toEqual({ sandbox: 'https://sandbox.example.com', production: 'https://api.example.com' });
  });

  it('lets COOKIE_SECURE override the default', () => {
    expect(loadConfig({ COOKIE_SECURE: 'true' }).cookieSecure).toBe(true);
    expect(loadConfig({ COOKIE_SECURE: 'false', UPSTREAM_SANDBOX_URL: 'https://a.example.com', UPSTREAM_PRODUCTION_URL: 'https://b.example.com' }).cookieSecure).toBe(false);
  });

  it('refuses REDIS_URL without CREDENTIAL_KEY, naming CREDENTIAL_KEY', () => {
    const error = refusal({ REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.name).toBe('ConfigError');
    expect(error.message).toContain('CREDENTIAL_KEY');
  });

  it('refuses CACHE_REDIS_URL without CREDENTIAL_KEY: each process would seal cache entries with its own key', () => {
    expect(refusal({ CACHE_REDIS_URL: 'redis://127.0.0.1:6380' }).message).toMatch(/CREDENTIAL_KEY: is required with CACHE_REDIS_URL/);
    expect(loadConfig({ CACHE_REDIS_URL: 'redis://127.0.0.1:6380', CREDENTIAL_KEY: KEY }).cacheRedis).toEqual({ topology: 'single', url: 'redis://127.0.0.1:6380' });
  });

  it('accepts REDIS_URL with a 32-byte base64 CREDENTIAL_KEY', () => {
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', CREDENTIAL_KEY: KEY });
    expect(config.redis).toEqual({ topology: 'single', url: 'redis://127.0.0.1:6379' });
    expect(config.cacheRedis).toEqual({ topology: 'single', url: 'redis://127.0.0.1:6379' });
    expect(config.credentialKey?.equals(Buffer.from(KEY, 'base64'))).toBe(true);
  });

  it('reads CREDENTIAL_KEY_PREVIOUS as comma-separated keys, refusing a bad entry or one without CREDENTIAL_KEY', () => {
    const old1 = randomBytes(32).toString('base64');
    const old2 = randomBytes(32).toString('base64');
    const config = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', CREDENTIAL_KEY: KEY, CREDENTIAL_KEY_PREVIOUS: `${old1}, ${old2}` });
    expect(config.previousCredentialKeys.map((key) => key.toString('base64'))).toEqual([old1, old2]);
    expect(loadConfig({}).previousCredentialKeys).toEqual([]);
    const bad = refusal({ CREDENTIAL_KEY: KEY, CREDENTIAL_KEY_PREVIOUS: `${old1},nope` });
    expect(bad.message).toMatch(/CREDENTIAL_KEY_PREVIOUS: entry 2/);
    expect(bad.message).not.toContain(old1);
    expect(refusal({ CREDENTIAL_KEY_PREVIOUS: old1 }).message).toContain('CREDENTIAL_KEY_PREVIOUS');
  });

  it('refuses a CREDENTIAL_KEY that is not 32 bytes of base64, naming the variable', () => {
    for (const value of ['too-short', randomBytes(16).toString('base64'), randomBytes(32).toString('hex')]) {
      expect(refusal({ CREDENTIAL_KEY: value }).message).toContain('CREDENTIAL_KEY');
    }
  });

  it('refuses a CREDENTIAL_KEY with characters outside base64, or all zero bytes (regression)', () => {
    // Buffer.from(text, 'base64') skips stray characters: '@@' + 43 'A's + '=' decoded to 32 zero bytes.
    for (const value of [`@@${'A'.repeat(43)}=`, '-'.repeat(43), Buffer.alloc(32).toString('base64')]) {
      expect(refusal({ CREDENTIAL_KEY: value }).message).toContain('CREDENTIAL_KEY');
    }
  });

  it('refuses SESSION_IDLE_TIMEOUT=soon, naming the variable', () => {
    expect(refusal({ SESSION_IDLE_TIMEOUT: 'soon' }).message).toContain('SESSION_IDLE_TIMEOUT');
  });

  it('refuses a zero SESSION_ABSOLUTE_TIMEOUT, naming the variable', () => {
    expect(refusal({ SESSION_ABSOLUTE_TIMEOUT: '0s' }).message).toContain('SESSION_ABSOLUTE_TIMEOUT');
  });

  it('reads SESSION_CACHE_TTL from 0 (off) to 1s, and refuses longer, naming the variable', () => {
    expect(loadConfig({ SESSION_CACHE_TTL: '0' }).sessionCacheMs).toBe(0);
    expect(loadConfig({ SESSION_CACHE_TTL: '250ms' }).sessionCacheMs).toBe(250);
    expect(refusal({ SESSION_CACHE_TTL: '2s' }).message).toContain('SESSION_CACHE_TTL');
    expect(refusal({ SESSION_CACHE_TTL: 'soon' }).message).toContain('SESSION_CACHE_TTL');
  });

  it('refuses PORT=70000, naming the variable', () => {
    expect(refusal({ PORT: '70000' }).message).toContain('PORT');
  });

  it('parses ALLOWED_ORIGINS into a list of origins', () => {
    expect(loadConfig({ ALLOWED_ORIGINS: 'https://a.example.com, http://localhost:3000' }).allowedOrigins).toEqual([
      'https://a.example.com',
      'http://localhost:3000',
    ]);
  });

  it('refuses an ALLOWED_ORIGINS entry that is not a URL, naming the variable', () => {
    expect(refusal({ ALLOWED_ORIGINS: 'not a url' }).message).toContain('ALLOWED_ORIGINS');
  });

  it('refuses an ALLOWED_ORIGINS entry with a path, naming the variable', () => {
    expect(refusal({ ALLOWED_ORIGINS: 'https://a.example.com/app' }).message).toContain('ALLOWED_ORIGINS');
  });

  it('refuses a REDIS_URL that is not redis: or rediss:, naming the variable', () => {
    expect(refusal({ REDIS_URL: 'http://x', CREDENTIAL_KEY: KEY }).message).toContain('REDIS_URL');
  });

  it('reads the login, anonymous and query-size limits, with the contract\'s defaults', () => {
    const { limits } = loadConfig({});
    expect(limits.loginPerAccount).toEqual({ max: 10, windowMs: 15 * 60_000 });
    expect(limits.anonymous).toEqual({ max: 30, windowMs: 60_000 });
    expect(limits.maxQueryBytes).toBe(128 * 1024);
    expect(loadConfig({ RATE_LIMIT_LOGIN_ACCOUNT: '3/1h', RATE_LIMIT_ANONYMOUS: '5/10s', MAX_QUERY_BYTES: '4096' }).limits).toMatchObject({
      loginPerAccount: { max: 3, windowMs: 3_600_000 },
      anonymous: { max: 5, windowMs: 10_000 },
      maxQueryBytes: 4096,
    });
    expect(refusal({ RATE_LIMIT_ANONYMOUS: 'lots' }).message).toContain('RATE_LIMIT_ANONYMOUS');
    expect(refusal({ MAX_QUERY_BYTES: '10' }).message).toContain('MAX_QUERY_BYTES');
  });

  describe('NODE_ENV=production', () => {
    const ready = {
      NODE_ENV: 'production',
      UPSTREAM_SANDBOX_URL: 'https://sandbox.example.com',
      UPSTREAM_PRODUCTION_URL: 'https://api.example.com',
      REDIS_URL: 'rediss://127.0.0.1:6380',
      CREDENTIAL_KEY: KEY,
    };

    it('starts with https:// upstream URLs, Redis over TLS and a loopback HOST', () => {
      expect(loadConfig(ready).production).toBe(true);
      expect(loadConfig(ready).insecureTransport).toEqual([]);
    });

    it('refuses to start the built-in emulator, naming UPSTREAM_SANDBOX_URL', () => {
      const { UPSTREAM_SANDBOX_URL: _sandbox, UPSTREAM_PRODUCTION_URL: _production, ...rest } = ready;
      expect(refusal(rest).message).toMatch(/UPSTREAM_SANDBOX_URL: .*built-in emulator/);
    });

    it('refuses COOKIE_SECURE=false, naming the variable', () => {
      expect(refusal({ ...ready, COOKIE_SECURE: 'false' }).message).toContain('COOKIE_SECURE:');
    });

    it('refuses to keep sessions in memory, naming REDIS_URL', () => {
      expect(refusal({ ...ready, REDIS_URL: undefined, CREDENTIAL_KEY: undefined }).message).toContain('REDIS_URL:');
    });

    it('refuses a HOST that is not loopback without OPS_TOKEN, and accepts it with one', () => {
      expect(refusal({ ...ready, HOST: '0.0.0.0' }).message).toContain('OPS_TOKEN:');
      expect(loadConfig({ ...ready, HOST: '0.0.0.0', OPS_TOKEN: 'a-token-of-24-characters' }).host).toBe('0.0.0.0');
      for (const host of ['localhost', '::1', '127.0.0.2']) expect(loadConfig({ ...ready, HOST: host }).host).toBe(host);
    });

    it('names every problem at once, and none of the secrets', () => {
      const message = refusal({ NODE_ENV: 'production', HOST: '0.0.0.0', COOKIE_SECURE: 'false', CREDENTIAL_KEY: KEY, CACHE_REDIS_URL: 'redis://:a-cache-password@cache:6379' }).message;
      for (const name of ['UPSTREAM_SANDBOX_URL', 'COOKIE_SECURE', 'REDIS_URL', 'CACHE_REDIS_URL', 'OPS_TOKEN']) expect(message).toContain(`${name}:`);
      expect(message).not.toContain('a-cache-password');
      expect(message).not.toContain(KEY);
    });

    it('refuses an http:// upstream URL, naming each variable', () => {
      const message = refusal({ ...ready, UPSTREAM_SANDBOX_URL: 'http://sandbox.example.com', UPSTREAM_PRODUCTION_URL: 'http://api.example.com' }).message;
      expect(message).toMatch(/UPSTREAM_SANDBOX_URL: is not https:\/\//);
      expect(message).toMatch(/UPSTREAM_PRODUCTION_URL: is not https:\/\//);
      expect(message).toContain('ALLOW_INSECURE_TRANSPORT=true');
    });

    it('refuses the same URL for sandbox and production, even with ALLOW_INSECURE_TRANSPORT', () => {
      const same = { ...ready, UPSTREAM_SANDBOX_URL: 'https://api.example.com', UPSTREAM_PRODUCTION_URL: 'https://API.example.com/' };
      expect(refusal(same).message).toMatch(/UPSTREAM_PRODUCTION_URL: must not be the same as UPSTREAM_SANDBOX_URL/);
      expect(refusal({ ...same, ALLOW_INSECURE_TRANSPORT: 'true' }).message).toContain('UPSTREAM_PRODUCTION_URL:');
    });

    it('refuses a REDIS_URL or CACHE_REDIS_URL without TLS, naming each and not its password', () => {
      const plain = [`redis://:${'p'.repeat(20)}@10.0.0.5:6379`, 'redis+sentinel://s1,s2/sessions', 'redis+cluster://n1:7000,n2:7001?tls=false'];
      for (const url of plain) {
        const message = refusal({ ...ready, REDIS_URL: url, CACHE_REDIS_URL: url }).message;
        expect(message).toMatch(/REDIS_URL: has no TLS/);
        expect(message).toMatch(/CACHE_REDIS_URL: has no TLS/);
        expect(message).not.toContain('p'.repeat(20));
      }
    });

    it('accepts rediss:// and ?tls=true on the Sentinel and Cluster forms as TLS', () => {
      for (const url of ['rediss://10.0.0.5:6380', 'REDISS://10.0.0.5', 'redis+sentinel://s1,s2/sessions?tls=true', 'redis+cluster://n1:7000?tls=true']) {
        expect(loadConfig({ ...ready, REDIS_URL: url, CACHE_REDIS_URL: url }).insecureTransport).toEqual([]);
      }
    });

    it('lets ALLOW_INSECURE_TRANSPORT=true through http:// upstreams and Redis without TLS, and says which', () => {
      const config = loadConfig({ ...ready, UPSTREAM_SANDBOX_URL: 'http://emulator-sandbox:4010', REDIS_URL: 'redis://redis-sessions:6379', CACHE_REDIS_URL: 'rediss://redis-cache:6380', ALLOW_INSECURE_TRANSPORT: 'true' });
      expect(config.insecureTransport).toEqual(['UPSTREAM_SANDBOX_URL', 'REDIS_URL']);
      expect(loadConfig({ ...ready, REDIS_URL: 'rediss://r:6380', ALLOW_INSECURE_TRANSPORT: 'true' }).insecureTransport).toEqual([]);
    });

    it('accepts NODE_ENV unset, development, test or production only, naming the variable for any other', () => {
      for (const value of ['prod', 'Production', 'PRODUCTION', 'staging', 'production ']) {
        expect(refusal({ HOST: '0.0.0.0', NODE_ENV: value }).message).toMatch(/NODE_ENV: expected development, test or production/);
      }
      for (const value of [undefined, 'development', 'test']) expect(loadConfig({ NODE_ENV: value }).production).toBe(false);
    });

    it('is not applied outside production', () => {
      expect(loadConfig({ HOST: '0.0.0.0', COOKIE_SECURE: 'false' }).production).toBe(false);
    });
  });

  it('names every bad variable in one message', () => {
    const message = refusal({ PORT: '70000', SESSION_IDLE_TIMEOUT: 'soon', REDIS_URL: 'http://x' }).message;
    expect(message).toContain('PORT');
    expect(message).toContain('SESSION_IDLE_TIMEOUT');
    expect(message).toContain('REDIS_URL');
  });
});

describe('parseDuration', () => {
  it('reads milliseconds, seconds, minutes, hours and days', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('8h')).toBe(28_800_000);
    expect(parseDuration('1d')).toBe(86_400_000);
  });

  it('reads a bare number as seconds', () => {
    expect(parseDuration('45')).toBe(45_000);
  });

  it('gives undefined for text that is not a duration', () => {
    expect(parseDuration('x')).toBeUndefined();
    expect(parseDuration('')).toBeUndefined();
    expect(parseDuration('1.5h')).toBeUndefined();
    expect(parseDuration('-5s')).toBeUndefined();
    expect(parseDuration('5w')).toBeUndefined();
  });
});
