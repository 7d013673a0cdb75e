/** The bench's own HTTP calls (setup, probes, one-connection loops): loopback only, each bounded in time. */
import { PASSWORD, QUERIES } from './settings';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function loopbackOnly(url: string): string {
  const { hostname } = new URL(url);
  if (hostname !== '127.0.0.1') throw new Error(`refusing a non-loopback target: ${url}`);
  return url;
}

export const JSON_HEADERS = { 'content-type': 'application/json' } as const;

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(loopbackOnly(url), {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
}

/** A call to an emulator's control API (`/__emulator/<route>`). */
export async function control(emulator: string, method: string, route: string, body?: unknown): Promise<unknown> {
  const response = await fetch(loopbackOnly(`${emulator}/__emulator/${route}`), {
    method,
    headers: JSON_HEADERS,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`emulator ${method} ${route}: ${response.status} ${await response.text()}`);
  return response.json();
}

export async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export type Credential = Record<'access-token' | 'client' | 'uid', string>;

/** The upstream's devise credential headers for `email`, from its own sign-in. */
export async function upstreamSignIn(emulator: string, email: string): Promise<Credential> {
  const response = await postJson(`${emulator}/v2/auth/sign_in`, { email, password: PASSWORD });
  const header = (name: string) => response.headers.get(name) ?? '';
  if (!response.ok || !header('access-token')) throw new Error(`upstream sign-in of ${email}: ${response.status}`);
  return { 'access-token': header('access-token'), client: header('client'), uid: header('uid') };
}

/** A session cookie (`name=value`) from the gateway's `login`. */
export async function gatewayLogin(gateway: string, email: string, environment: 'SANDBOX' | 'PRODUCTION'): Promise<string> {
  const response = await postJson(`${gateway}/graphql`, { query: QUERIES.login, variables: { e: email, p: PASSWORD, env: environment } }, { 'x-csrf': '1' });
  const cookie = response.headers.getSetCookie()[0]?.split(';')[0];
  const text = await response.text();
  if (!response.ok || !cookie) throw new Error(`gateway login of ${email}: ${response.status} ${text.slice(0, 300)}`);
  return cookie;
}

/** A GraphQL answer without a transport error and without the payload's own errors. */
export function cleanAnswer(body: string): boolean {
  return body.startsWith('{"data":{') && !body.includes('"errors":[{') && !body.includes('"errors":["');
}
