/** Test helpers: an emulator per test file, and small HTTP clients for its three endpoints and control API. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { DEMO_ACCOUNT, startEmulator, type Environment, type RunningEmulator } from '../../emulator';

export { DEMO_ACCOUNT };

export interface Credential {
  readonly 'access-token': string;
  readonly client: string;
  readonly uid: string;
}

export interface HttpAnswer<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

async function answer<T>(response: Response): Promise<HttpAnswer<T>> {
  const text = await response.text();
  let body: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: body as T };
}

/** A clock that runs with Date.now and that a test moves forward, for the emulator's tokens. */
export function movableClock(): { readonly now: () => number; advance(ms: number): void } {
  let offsetMs = 0;
  return { now: () => Date.now() + offsetMs, advance: (ms) => void (offsetMs += ms) };
}

export interface UseEmulatorOptions {
  /** The emulator's clock (movableClock). */
  readonly now?: () => number;
  /**
   * Reset before each test (default true). False for files whose tests run at once: one test's
   * reset would end the upstream credentials another test is using.
   */
  readonly resetBeforeEach?: boolean;
}

/** Starts one emulator for the file and resets it (over HTTP) before each test. */
export function useEmulator(environment: Environment = 'sandbox', options: UseEmulatorOptions = {}): { readonly url: string; readonly emulator: RunningEmulator } {
  let emulator: RunningEmulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ environment, now: options.now });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  beforeEach(async () => {
    if (options.resetBeforeEach ?? true) await control(handle.url, 'POST', '/__emulator/reset');
  });
  const handle = {
    get url(): string {
      if (!emulator) throw new Error('emulator not started');
      return emulator.url;
    },
    get emulator(): RunningEmulator {
      if (!emulator) throw new Error('emulator not started');
      return emulator;
    },
  };
  return handle;
}

export async function control<T = unknown>(url: string, method: string, path: string, body?: unknown): Promise<HttpAnswer<T>> {
  return answer<T>(await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }));
}

export async function signInRaw(url: string, email: string, password: string): Promise<HttpAnswer> {
  return answer(await fetch(`${url}/v2/auth/sign_in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  }));
}

export function credentialFrom(headers: Headers): Credential {
  const get = (name: string): string => {
    const value = headers.get(name);
    if (!value) throw new Error(`no ${name} header`);
    return value;
  };
  return { 'access-token': get('access-token'), client: get('client'), uid: get('uid') };
}

export async function signIn(url: string, email: string = DEMO_ACCOUNT.email, password: string = DEMO_ACCOUNT.password): Promise<Credential> {
  const res = await signInRaw(url, email, password);
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status}`);
  return credentialFrom(res.headers);
}

export interface GraphqlBody<D = Record<string, unknown>> {
  data?: D;
  errors?: ({ message: string } | string)[];
}

export async function graphql<D = Record<string, any>>( // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary result shapes
  url: string, credential: Credential | null, query: string, variables?: Record<string, unknown>,
): Promise<HttpAnswer<GraphqlBody<D>>> {
  return answer(await fetch(`${url}/v2/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(credential ?? {}) },
    body: JSON.stringify({ query, variables }),
  }));
}

/** A new confirmed account with a credential. */
export async function newAccount(url: string, email: string): Promise<Credential> {
  const password = 'a-long-enough-password-123';
  const created = await control(url, 'POST', '/__emulator/accounts', { email, password });
  if (created.status !== 201) throw new Error(`account not created: ${created.status}`);
  return signIn(url, email, password);
}

export async function seed(url: string, email: string, form: string, count: number, uploaderIdPrefix?: string): Promise<{ otxId: string; uploaderId: string }[]> {
  const res = await control<{ otxId: string; uploaderId: string }[]>(url, 'POST', '/__emulator/statements', { email, form, count, uploaderIdPrefix });
  if (res.status !== 201) throw new Error(`seed failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
