/** Service accounts for tests: a SERVICE_ACCOUNTS_FILE in a temporary directory, and keys to call with. */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestServiceAccount {
  /** Unique per run (Redis keeps shared credentials by name between runs). */
  readonly name: string;
  readonly key: string;
  readonly email: string;
  readonly password: string;
  /** What the file's passwordEnv names (defaults to `password`: set a wrong one to test refusals). */
  readonly configuredPassword?: string;
  readonly environment?: 'sandbox' | 'production';
  readonly requestsPerMinute?: number;
}

const run = randomBytes(4).toString('hex');

/** An account description with a unique name, key and e-mail. */
export function testServiceAccount(label: string, options: Partial<Omit<TestServiceAccount, 'name' | 'key'>> = {}): TestServiceAccount {
  return {
    name: `${label}-${run}`,
    key: `sgw_${randomBytes(24).toString('base64url')}`,
    email: options.email ?? `svc-${label}-${run}@example.com`,
    password: options.password ?? `service-password-${randomBytes(6).toString('hex')}`,
    ...options,
  };
}

/** Writes the file; returns the variables a gateway needs (the file and each password). */
export function serviceAccountsEnv(accounts: readonly TestServiceAccount[]): Record<string, string> {
  const env: Record<string, string> = {};
  const entries = accounts.map((account, index) => {
    const passwordEnv = `SVC_PASSWORD_${index}`;
    env[passwordEnv] = account.configuredPassword ?? account.password;
    return {
      name: account.name,
      apiKeySha256: createHash('sha256').update(account.key).digest('hex'),
      email: account.email,
      passwordEnv,
      environment: account.environment ?? 'sandbox',
      requestsPerMinute: account.requestsPerMinute ?? 10_000,
    };
  });
  const file = join(mkdtempSync(join(tmpdir(), 'sgw-accounts-')), 'service-accounts.json');
  writeFileSync(file, JSON.stringify(entries));
  return { ...env, SERVICE_ACCOUNTS_FILE: file };
}

export interface ApiAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { data?: Record<string, any> | null; errors?: { message: string; extensions?: { code?: string } }[] }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary shapes
  readonly codes: string[];
}

/** A GraphQL call as an internal service makes it: the API key, no cookie, no X-CSRF. */
export async function callWithKey(gatewayUrl: string, key: string, query: string, variables?: Record<string, unknown>): Promise<ApiAnswer> {
  const response = await fetch(`${gatewayUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = JSON.parse(await response.text()) as ApiAnswer['body'];
  return { status: response.status, headers: response.headers, body, codes: (body.errors ?? []).map((error) => error.extensions?.code ?? '?') };
}
