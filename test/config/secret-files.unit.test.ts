/**
 * CREDENTIAL_KEY_FILE, OPS_TOKEN_FILE, REDIS_URL_FILE and CACHE_REDIS_URL_FILE (src/config/secret-files.ts),
 * through loadConfig with real files: the value read instead of the variable, one trailing newline
 * ignored, and every problem (both set, a file that cannot be read or is empty) reported with the
 * other configuration errors at once, naming the variable and never the file's content.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config/index';
import { configRefusal } from '../support/config';

const KEY = randomBytes(32).toString('base64');
const TOKEN = 'ops-token-0123456789abcdef';
const REDIS = 'rediss://gateway:s3cret-in-a-file@redis.example.com:6380/1';
const CACHE_REDIS = 'rediss://cache:an0ther-s3cret@redis-cache.example.com:6380';

const dir = mkdtempSync(join(tmpdir(), 'sgw-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** A new file holding `content`; its path. */
function secretFile(content: string): string {
  const file = join(dir, `secret-${++files}`);
  writeFileSync(file, content);
  return file;
}

const refusal = (env: NodeJS.ProcessEnv): string => configRefusal(env).message;

describe('secrets as files (*_FILE)', () => {
  it('reads each of the four values from its file, as the variable would give it', () => {
    const fromVariables = loadConfig({ CREDENTIAL_KEY: KEY, OPS_TOKEN: TOKEN, REDIS_URL: REDIS, CACHE_REDIS_URL: CACHE_REDIS });
    const fromFiles = loadConfig({
      CREDENTIAL_KEY_FILE: secretFile(KEY),
      OPS_TOKEN_FILE: secretFile(TOKEN),
      REDIS_URL_FILE: secretFile(REDIS),
      CACHE_REDIS_URL_FILE: secretFile(CACHE_REDIS),
    });
    expect(fromFiles.credentialKey?.toString('base64')).toBe(KEY);
    expect(fromFiles.opsToken).toBe(TOKEN);
    expect(fromFiles.redis).toEqual(fromVariables.redis);
    expect(fromFiles.cacheRedis).toEqual(fromVariables.cacheRedis);
    expect(fromFiles.redis).toEqual({ topology: 'single', url: REDIS });
  });

  it('ignores one trailing newline, \\n or \\r\\n, as echo or an editor leaves it', () => {
    expect(loadConfig({ OPS_TOKEN_FILE: secretFile(`${TOKEN}\n`) }).opsToken).toBe(TOKEN);
    expect(loadConfig({ OPS_TOKEN_FILE: secretFile(`${TOKEN}\r\n`) }).opsToken).toBe(TOKEN);
    expect(loadConfig({ CREDENTIAL_KEY_FILE: secretFile(`${KEY}\r\n`) }).credentialKey?.toString('base64')).toBe(KEY);
    expect(loadConfig({ REDIS_URL_FILE: secretFile(`${REDIS}\n`), CREDENTIAL_KEY: KEY }).redis).toEqual({ topology: 'single', url: REDIS });
  });

  it('treats a blank *_FILE as unset', () => {
    expect(loadConfig({ OPS_TOKEN_FILE: '  ', OPS_TOKEN: TOKEN }).opsToken).toBe(TOKEN);
    expect(loadConfig({ OPS_TOKEN_FILE: '' }).opsToken).toBeUndefined();
  });

  it('stops the start when a variable and its _FILE are both set, naming both and neither value', () => {
    const message = refusal({ OPS_TOKEN: TOKEN, OPS_TOKEN_FILE: secretFile(TOKEN), REDIS_URL: REDIS, REDIS_URL_FILE: secretFile(REDIS), CREDENTIAL_KEY: KEY });
    expect(message).toMatch(/OPS_TOKEN_FILE: .*OPS_TOKEN\b/);
    expect(message).toMatch(/REDIS_URL_FILE: .*REDIS_URL\b/);
    expect(message).not.toContain(TOKEN);
    expect(message).not.toContain('s3cret');
  });

  it('stops the start when a file cannot be read, naming the variable, the file and the problem', () => {
    const missing = join(dir, 'no-such-file');
    expect(refusal({ CREDENTIAL_KEY_FILE: missing })).toContain(`CREDENTIAL_KEY_FILE: cannot read ${missing} (ENOENT)`);
    expect(refusal({ CACHE_REDIS_URL_FILE: dir, CREDENTIAL_KEY: KEY })).toContain(`CACHE_REDIS_URL_FILE: cannot read ${dir} (EISDIR)`);
  });

  it('stops the start on an empty file (a Secret key without data), rather than reading it as unset', () => {
    const empty = secretFile('\n');
    expect(refusal({ OPS_TOKEN_FILE: empty })).toContain(`OPS_TOKEN_FILE: ${empty} is empty`);
  });

  it('names a bad value read from a file by its variable and file, never printing the content', () => {
    const message = refusal({ CREDENTIAL_KEY_FILE: secretFile('not-a-key-but-secret-words\n'), REDIS_URL_FILE: secretFile('http://user:s3cret-in-a-file@redis.example.com\n') });
    expect(message).toContain('CREDENTIAL_KEY (from CREDENTIAL_KEY_FILE): expected 32 bytes in base64');
    expect(message).toContain('REDIS_URL (from REDIS_URL_FILE): unknown scheme');
    expect(message).not.toContain('secret-words');
    expect(message).not.toContain('s3cret');
  });

  it('reports its problems with every other bad variable at once, without the ones a failed file only causes', () => {
    const message = refusal({ PORT: '70000', CREDENTIAL_KEY_FILE: join(dir, 'missing-key'), REDIS_URL: REDIS, OPS_TOKEN: TOKEN, OPS_TOKEN_FILE: secretFile(TOKEN), SESSION_IDLE_TIMEOUT: 'soon' });
    expect(message.split('\n').slice(1).map((line) => line.trim().split(':')[0]).sort()).toEqual(['CREDENTIAL_KEY_FILE', 'OPS_TOKEN_FILE', 'PORT', 'SESSION_IDLE_TIMEOUT']);
    // Not also "CREDENTIAL_KEY: is required with REDIS_URL": the file is what to fix.
    expect(message).not.toMatch(/^\s+CREDENTIAL_KEY:/m);
  });

  it('lists the four *_FILE variables among those the configuration reads', () => {
    expect(CONFIG_VARIABLES).toEqual(expect.arrayContaining(['CREDENTIAL_KEY_FILE', 'OPS_TOKEN_FILE', 'REDIS_URL_FILE', 'CACHE_REDIS_URL_FILE']));
  });
});
