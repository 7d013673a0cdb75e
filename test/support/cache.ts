/** Helpers for the cache tests: users with statements of their own, and the upstream's request log. */
import { expect } from 'vitest';
import { control, seed } from './emulator';
import { Browser } from './gateway';

export interface UpstreamRequest {
  readonly path: string;
  readonly operations: string[];
  readonly uid: string | null;
  readonly status: number;
}

/** The upstream's recent requests (newest last), then forgets them. */
export async function takeUpstreamRequests(emulatorUrl: string): Promise<UpstreamRequest[]> {
  const requests = await control<UpstreamRequest[]>(emulatorUrl, 'GET', '/__emulator/requests');
  await control(emulatorUrl, 'DELETE', '/__emulator/requests');
  return requests.body;
}

/** How many upstream GraphQL requests ran `operation`. */
export function countOperation(requests: readonly UpstreamRequest[], operation: string): number {
  return requests.filter((request) => request.operations.includes(operation)).length;
}

/** The forms' identifiers and names: a definitions read. */
export const DEFINITION_NAMES = '{ statementDefinitions { definitions { identifier name } errors } }';

/**
 * 20 definitions reads at once, the i-th sent by `browsers[i % browsers.length]`, while the
 * upstream takes 300 ms to answer: each gets the 12 forms. Resolves with how many upstream calls
 * for the definitions they caused.
 */
export async function definitionsCallsForConcurrentReads(emulatorUrl: string, browsers: readonly Browser[]): Promise<number> {
  await control(emulatorUrl, 'PATCH', '/__emulator/settings', { latencyMs: 300 });
  await takeUpstreamRequests(emulatorUrl);
  try {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => browsers[i % browsers.length]!.graphql<{ statementDefinitions: { definitions: unknown[] } }>(DEFINITION_NAMES)));
    for (const answer of answers) {
      expect(answer.codes).toEqual([]);
      expect(answer.body.data?.statementDefinitions.definitions).toHaveLength(12);
    }
  } finally {
    await control(emulatorUrl, 'PATCH', '/__emulator/settings', { latencyMs: 0 });
  }
  return countOperation(await takeUpstreamRequests(emulatorUrl), 'statementDefinitions');
}

let accounts = 0;

export interface TestUser {
  readonly email: string;
  readonly browser: Browser;
  readonly statements: { otxId: string; uploaderId: string }[];
}

/** A new upstream account with `count` statements of `form`, signed in to the gateway. */
export async function signedInUser(gatewayUrl: string, emulatorUrl: string, options: { form?: string; count?: number; environment?: 'SANDBOX' | 'PRODUCTION' } = {}): Promise<TestUser> {
  const email = `cache-user-${process.pid}-${Date.now()}-${++accounts}@example.com`;
  const password = 'a-long-enough-password-123';
  const created = await control(emulatorUrl, 'POST', '/__emulator/accounts', { email, password });
  if (created.status !== 201) throw new Error(`account not created: ${created.status}`);
  const statements = options.count === 0 ? [] : await seed(emulatorUrl, email, options.form ?? 'F1099nec', options.count ?? 3, `u${accounts}-`);
  const browser = new Browser(gatewayUrl);
  const login = await browser.login(email, password, options.environment ?? 'SANDBOX');
  if (login.codes.length) throw new Error(`login failed: ${login.codes.join()}`);
  return { email, browser, statements };
}
