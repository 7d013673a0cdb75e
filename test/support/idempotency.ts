/** Keyed mutations as a browser sends them, for the idempotency specs: raw answers, byte for byte. */
import type { Browser } from './gateway';

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
