/**
 * Gateways for tests, on a free port with their JSON logs captured: in the test's own process
 * (in-process.ts) unless a test needs a process of its own (signals, exit codes, `npm start`:
 * startGatewayProcess, the real `src/main.ts` started by launcher.ts as the bench and the soak
 * start it). Plus a small client that keeps a cookie jar.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { useEmulator, type HttpAnswer, type UseEmulatorOptions } from './emulator';
import { startGatewayInProcess, type InProcessGateway, type TestGateway } from './in-process';
import { launchGateway, runGatewayToExit, type Launched } from './launcher';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy';
import { ownRedis, type OwnRedis } from './redis-server';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/9';
export const TEST_CREDENTIAL_KEY = randomBytes(32).toString('base64');

/** A started gateway: `url`, `output()`, `stop()`. */
export type { TestGateway };

/**
 * Login limits for tests that are not about them: files log the same accounts in many times from
 * 127.0.0.1 (test/protection/ sets strict limits of its own).
 */
export const RELAXED_LIMITS = { RATE_LIMIT_LOGIN: '100000/1m', RATE_LIMIT_LOGIN_ADDRESS: '100000/1m', RATE_LIMIT_LOGIN_ACCOUNT: '100000/1m', RATE_LIMIT_ANONYMOUS: '100000/1m' };

/** A short drain: every gateway process is stopped with SIGTERM (test/e2e/drain.test.ts sets its own). */
const FAST_SHUTDOWN = { SHUTDOWN_DELAY: '50ms' };

/**
 * No session cap for tests that are not about it: the files of a worker share the test Redis and
 * CREDENTIAL_KEY, so the demo account's sessions of every file before count toward it, and a
 * login past it would sign one out upstream in the middle of a test that counts upstream calls
 * (test/e2e/session-revocation.test.ts sets a cap of its own).
 */
const UNCAPPED_SESSIONS = { SESSION_MAX_PER_USER: '1000' };

/**
 * The upstream schema check off unless a test is about it (test/ops/upstream-schema*.test.ts): at
 * start it would add a sign-in and an introspection to the emulator's request log of every gateway
 * with a service account, which many tests count.
 */
const NO_SCHEMA_CHECK = { UPSTREAM_SCHEMA_CHECK_INTERVAL: '0' };

const testEnv = (env: Record<string, string | undefined>) => ({ LOG_LEVEL: 'info', NODE_ENV: 'test', ...RELAXED_LIMITS, ...FAST_SHUTDOWN, ...UNCAPPED_SESSIONS, ...NO_SCHEMA_CHECK, ...env });

/** A gateway in this process with these variables (plus PORT=0 and the tests' defaults). */
export function startTestGateway(env: Record<string, string | undefined>): Promise<InProcessGateway> {
  return startGatewayInProcess(testEnv(env));
}

/** `src/main.ts` in a child process with these variables (plus PORT=0 and the tests' defaults). */
export function startGatewayProcess(env: Record<string, string | undefined>): Promise<Launched> {
  // A start takes 2-4 s alone, but over 25 s when CI's first minute starts a dozen processes
  // (with typecheck and lint beside them) on two cores: the callers' hooks and tests allow 90 s.
  return launchGateway({ env: testEnv(env), waitForStartedLog: true, startTimeoutMs: 60_000 });
}

/** Runs `src/main.ts` with these variables (plus PORT=0) expecting it to refuse to start: its exit code and output. */
export function runToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return runGatewayToExit(env);
}

/** One gateway for the whole file, stopped after it. */
export function useGateway(env: () => Record<string, string | undefined>): { readonly current: TestGateway; start(): Promise<TestGateway> } {
  let gateway: TestGateway | undefined;
  afterAll(async () => {
    await gateway?.stop();
  });
  return {
    get current(): TestGateway {
      if (!gateway) throw new Error('gateway not started');
      return gateway;
    },
    async start() {
      await gateway?.stop();
      gateway = await startTestGateway(env());
      return gateway;
    },
  };
}

export interface GraphqlAnswer<D> extends HttpAnswer<{ data?: D | null; errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string; retryAfterSeconds?: number } }[] }> {
  /** The error codes, in order. */
  readonly codes: string[];
}

export interface ClientOptions {
  /** Send the X-CSRF header (default true). */
  readonly csrf?: boolean;
  readonly origin?: string;
  readonly headers?: Record<string, string>;
  readonly operationName?: string;
  /** Aborts the request (a client that goes away). */
  readonly signal?: AbortSignal;
}

/** A browser-like client: one cookie jar, the X-CSRF header by default. */
export class Browser {
  cookie: string | undefined;
  lastSetCookie: string[] = [];

  constructor(readonly gatewayUrl: string) {}

  async graphql<D = Record<string, any>>(query: string, variables?: Record<string, unknown>, options: ClientOptions = {}): Promise<GraphqlAnswer<D>> { // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary shapes
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) };
    if (options.csrf !== false) headers['x-csrf'] = '1';
    if (options.origin) headers.origin = options.origin;
    if (this.cookie) headers.cookie = this.cookie;
    const response = await fetch(`${this.gatewayUrl}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query, variables, operationName: options.operationName }), ...(options.signal ? { signal: options.signal } : {}) });
    this.lastSetCookie = response.headers.getSetCookie();
    for (const value of this.lastSetCookie) {
      const [pair = '', ...attributes] = value.split(';');
      const cleared = attributes.some((attribute) => /^\s*max-age=0$/i.test(attribute));
      this.cookie = cleared ? undefined : pair.trim();
    }
    const text = await response.text();
    const body = JSON.parse(text) as GraphqlAnswer<D>['body'];
    return { status: response.status, headers: response.headers, body, codes: (body.errors ?? []).map((error) => error.extensions?.code ?? '?') };
  }

  async login(email: string, password: string, environment: 'SANDBOX' | 'PRODUCTION' = 'SANDBOX') {
    return this.graphql<{ login: { uid: string; environment: string; expiresAt: string; idleExpiresAt: string } }>(
      'mutation Login($email: String!, $password: String!, $environment: Environment) { login(email: $email, password: $password, environment: $environment) { uid environment expiresAt idleExpiresAt } }',
      { email, password, environment },
    );
  }
}

/**
 * Both emulators and `count` gateway processes (replicas) sharing the test Redis, started before
 * the file's tests and stopped after them. `gateways` fills in once they are up.
 */
export function useGatewayReplicas(count: number, extraEnv: Record<string, string> = {}) {
  const sandbox = useEmulator('sandbox');
  const production = useEmulator('production');
  const gateways: TestGateway[] = [];
  beforeAll(async () => {
    const env = { UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY, ...extraEnv };
    gateways.push(...(await Promise.all(Array.from({ length: count }, () => startTestGateway(env)))));
  });
  afterAll(async () => {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.stop()));
  });
  return { sandbox, production, gateways };
}

/** Both emulators and a gateway on the test Redis in front of them, started before the file's tests. */
export function useGatewayOnEmulators(extraEnv: Record<string, string> = {}, emulatorOptions: UseEmulatorOptions = {}) {
  const sandbox = useEmulator('sandbox', emulatorOptions);
  const production = useEmulator('production', emulatorOptions);
  const gateway = useGateway(() => ({
    UPSTREAM_SANDBOX_URL: sandbox.url,
    UPSTREAM_PRODUCTION_URL: production.url,
    REDIS_URL: TEST_REDIS_URL,
    CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    ...extraEnv,
  }));
  beforeAll(async () => {
    await gateway.start();
  });
  return { sandbox, production, gateway };
}

/**
 * The usual end-to-end setup: both emulators, a recording proxy in front of the sandbox one, and a
 * gateway on Redis in front of them. `proxy.exchanges` is emptied before each test.
 */
export function useGatewayBehindRecordingProxy(extraEnv: Record<string, string> = {}) {
  const sandbox = useEmulator('sandbox');
  const production = useEmulator('production');
  let proxy: RecordingProxy | undefined;
  const gateway = useGateway(() => ({
    UPSTREAM_SANDBOX_URL: proxy?.url,
    UPSTREAM_PRODUCTION_URL: production.url,
    REDIS_URL: TEST_REDIS_URL,
    CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    ...extraEnv,
  }));
  beforeAll(async () => {
    proxy = await startRecordingProxy(() => sandbox.url);
    await gateway.start();
  });
  afterAll(async () => {
    await proxy?.close();
  });
  beforeEach(() => {
    proxy?.exchanges.splice(0);
  });
  return {
    sandbox,
    production,
    gateway,
    get proxy(): RecordingProxy {
      if (!proxy) throw new Error('proxy not started');
      return proxy;
    },
  };
}

/**
 * Both emulators and a gateway on a Redis of the test's own (which the test may pause, stop and
 * restart), started before the file's tests. `redis` is that server.
 */
export function useGatewayOnOwnRedis(extraEnv: Record<string, string> = {}) {
  const sandbox = useEmulator('sandbox');
  const production = useEmulator('production');
  let redis: OwnRedis | undefined;
  const gateway = useGateway(() => ({
    UPSTREAM_SANDBOX_URL: sandbox.url,
    UPSTREAM_PRODUCTION_URL: production.url,
    REDIS_URL: redis?.url,
    CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    ...extraEnv,
  }));
  beforeAll(async () => {
    redis = await ownRedis();
    await redis.start();
    await gateway.start();
  });
  afterAll(async () => {
    await gateway.current.stop();
    await redis?.stop();
  });
  return {
    sandbox,
    production,
    gateway,
    get redis(): OwnRedis {
      if (!redis) throw new Error('redis not started');
      return redis;
    },
  };
}
