/**
 * SERVICE_ACCOUNTS_FILE: internal services' identities (see the contract). Read and validated once
 * at start with the rest of the configuration. The API key is only ever held as its SHA-256; the
 * upstream password is read from the environment variable each entry names.
 */
import { readJsonFile } from './json-file';
import { z } from 'zod';
import type { Environment } from '../environment';

export interface ServiceAccountConfig {
  /** Bounded and safe for logs, metrics and Redis keys. */
  readonly name: string;
  /** SHA-256 of the API key (32 bytes). */
  readonly apiKeySha256: Buffer;
  readonly email: string;
  /** Never logged, never in an error. */
  readonly password: string;
  readonly environment: Environment;
  readonly requestsPerMinute: number;
}

const entry = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'expected 1 to 64 letters, digits, ".", "_" or "-"'),
    apiKeySha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected the hex SHA-256 of the key (64 hex digits)'),
    email: z.string().trim().min(3).max(255),
    passwordEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable'),
    environment: z.enum(['sandbox', 'production']),
    requestsPerMinute: z.number().int().min(1).max(1_000_000),
  })
  .strict();

/**
 * Loads the file; returns the problems (one line each, never a password) or the accounts.
 */
export function loadServiceAccounts(file: string, env: NodeJS.ProcessEnv): { accounts: ServiceAccountConfig[] } | { problems: string[] } {
  const read = readJsonFile(file);
  if ('problems' in read) return read;
  const parsed = read.value;
  if (!Array.isArray(parsed)) return { problems: [`${file} must hold a JSON array of accounts`] };

  const problems: string[] = [];
  const accounts: ServiceAccountConfig[] = [];
  const names = new Set<string>();
  const keys = new Set<string>();
  parsed.forEach((raw: unknown, index) => {
    const result = entry.safeParse(raw);
    const label = `entry ${index + 1}${typeof (raw as { name?: unknown })?.name === 'string' ? ` (${String((raw as { name: string }).name).slice(0, 64)})` : ''}`;
    if (!result.success) {
      for (const issue of result.error.issues) problems.push(`${label}: ${issue.path.join('.') || 'entry'}: ${issue.message}`);
      return;
    }
    const account = result.data;
    const key = account.apiKeySha256.toLowerCase();
    if (names.has(account.name)) problems.push(`${label}: the name "${account.name}" is used twice`);
    if (keys.has(key)) problems.push(`${label}: the same apiKeySha256 as an earlier entry`);
    names.add(account.name);
    keys.add(key);
    const password = env[account.passwordEnv];
    if (password === undefined || password === '') {
      problems.push(`${label}: the environment variable ${account.passwordEnv} (its password) is not set`);
      return;
    }
    accounts.push({
      name: account.name,
      apiKeySha256: Buffer.from(key, 'hex'),
      email: account.email,
      password,
      environment: account.environment,
      requestsPerMinute: account.requestsPerMinute,
    });
  });
  return problems.length ? { problems } : { accounts };
}
