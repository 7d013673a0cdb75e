/** Keyed mutations as a browser sends them, for the idempotency specs: raw answers, byte for byte. */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach } from 'vitest';
import { control } from './emulator';
import { startTestGateway, TEST_REDIS_URL, useGatewayOnEmulators, type Browser, type TestGateway } from './gateway';

export interface RawAnswer { readonly status: number; readonly headers: Headers; readonly text: string }

export const ADD_FW2 = 'mutation Add($s: [Fw2Input!]!) { addFw2Statements(statements: $s) { errors statements { recordNumber statement { uploaderId } } } }';
export const READ_FW2 = '{ getFw2Statements { statements { nodes { uploaderId } } } }';

/** A POST /graphql as the browser sends it, with an Idempotency-Key, answered as raw text. */
export async function send(browser: Browser, key: string | undefined, query: string, variables: Record<string, unknown>, url = browser.gatewayUrl, signal?: AbortSignal): Promise<RawAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-csrf': '1', ...(browser.cookie ? { cookie: browser.cookie } : {}) };
  if (key !== undefined) headers['idempotency-key'] = key;
  const response = await fetch(`${url}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables }), ...(signal ? { signal } : {}) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export const firstError = (answer: RawAnswer) => (JSON.parse(answer.text) as { errors?: { extensions?: { code?: string; retryAfterSeconds?: number } }[] }).errors?.[0];
export const code = (answer: RawAnswer) => firstError(answer)?.extensions?.code;

/** One valid W-2 for the add mutation's variables. */
export const fw2 = (uploaderId: string) => ({ s: [{ uploaderId, recipientFirstName: 'Ada', recipientLastName: 'Lovelace', recipientTin: '123-45-6789' }] });

/**
 * Both emulators for the file, and gateways of each test's own on the test Redis (each with a
 * CREDENTIAL_KEY of its own unless the test names one), stopped after the test; the sandbox's
 * request log is cleared before each test and its latency reset after it.
 */
export function useOwnGateways() {
  const { sandbox, production } = useGatewayOnEmulators();
  const own: TestGateway[] = [];
  beforeEach(async () => {
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
  });
  afterEach(async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { latencyMs: 0 });
    await Promise.all(own.splice(0).map((gateway) => gateway.stop()));
  });
  return {
    sandbox,
    production,
    gatewayWith: async (env: Record<string, string>): Promise<TestGateway> => {
      const started = await startTestGateway({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: randomBytes(32).toString('base64'), ...env });
      own.push(started);
      return started;
    },
    /** How many times the sandbox ran the root field `field` since the test began. */
    calls: async (field: string): Promise<number> =>
      (await control<{ operations: string[] }[]>(sandbox.url, 'GET', '/__emulator/requests')).body.flatMap((entry) => entry.operations).filter((name) => name === field).length,
  };
}
