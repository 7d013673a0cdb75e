/**
 * Two gateway replicas on one real Redis topology (a Cluster or a Sentinel group, from
 * redis-topologies.ts) for the scale-out suites, and the behaviours both topologies must keep:
 * what one replica writes, the other reads. Logins come from random addresses behind one trusted
 * proxy, with strict login limits, so that counters never collide between tests.
 */
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sessionKey } from '../../src/session/sessions';
import { definitionsCallsForConcurrentReads } from './cache';
import { control, useEmulator } from './emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, type ClientOptions, type TestGateway, type GraphqlAnswer } from './gateway';

export const PASSWORD = 'a-long-enough-password-123';
export const GREETING = '{ secretGreeting { response } }';
export const SESSION = '{ session { uid } }';

/** The login limits of test/protection/rate-limits.test.ts; the session limit out of the way of the load. */
const STRICT_LOGIN_LIMITS = {
  TRUST_PROXY: '1',
  RATE_LIMIT_LOGIN: '3/1m',
  RATE_LIMIT_LOGIN_ADDRESS: '6/1m',
  RATE_LIMIT_LOGIN_ACCOUNT: '5/1m',
  RATE_LIMIT_SESSION: '100000/1m',
};

export const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** A browser behind the trusted proxy, always at one address. */
export class ProxiedBrowser extends Browser {
  constructor(gatewayUrl: string, readonly address: string = randomAddress()) {
    super(gatewayUrl);
  }

  override graphql<D = Record<string, any>>(query: string, variables?: Record<string, unknown>, options: ClientOptions = {}): Promise<GraphqlAnswer<D>> { // eslint-disable-line @typescript-eslint/no-explicit-any -- as Browser.graphql
    return super.graphql<D>(query, variables, { ...options, headers: { ...(options.headers ?? {}), 'x-forwarded-for': this.address } });
  }

  /** The same cookie and address on another replica. */
  on(gateway: TestGateway): ProxiedBrowser {
    const other = new ProxiedBrowser(gateway.url, this.address);
    other.cookie = this.cookie;
    return other;
  }

  /** The store key of this browser's session. */
  get sessionKey(): string {
    const id = this.cookie?.split('=')[1];
    if (!id) throw new Error('no session cookie');
    return sessionKey(id);
  }
}

export interface Topology {
  readonly url: string;
  stop(): Promise<void>;
}

export interface ScaleOut<T extends Topology> {
  readonly sandbox: ReturnType<typeof useEmulator>;
  readonly gateways: readonly TestGateway[];
  readonly topology: T;
  /** A new upstream account, logged in on `gateway` from a new address. */
  readonly login: (gateway: TestGateway) => Promise<ProxiedBrowser & { readonly email: string }>;
}

/**
 * Both emulators, the topology `start` gives, and two gateways with REDIS_URL and CACHE_REDIS_URL
 * on it, started before the file's tests and stopped (gateways first) after them.
 */
export function useGatewaysOn<T extends Topology>(start: () => Promise<T>, extraEnv: Record<string, string> = {}): ScaleOut<T> {
  const sandbox = useEmulator('sandbox');
  const production = useEmulator('production');
  const gateways: TestGateway[] = [];
  let topology: T | undefined;
  beforeAll(async () => {
    topology = await start();
    const env = { UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: topology.url, CACHE_REDIS_URL: topology.url, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY, ...STRICT_LOGIN_LIMITS, ...extraEnv };
    gateways.push(...(await Promise.all([startTestGateway(env), startTestGateway(env)])));
  });
  afterAll(async () => {
    try {
      await Promise.all(gateways.splice(0).map((gateway) => gateway.stop()));
    } finally {
      await topology?.stop();
    }
  });
  let accounts = 0;
  return {
    sandbox,
    gateways,
    get topology(): T {
      if (!topology) throw new Error('topology not started');
      return topology;
    },
    async login(gateway) {
      const email = `scale-out-${process.pid}-${Date.now()}-${++accounts}@example.com`;
      const created = await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD });
      if (created.status !== 201) throw new Error(`account not created: ${created.status}`);
      const browser = new ProxiedBrowser(gateway.url);
      const login = await browser.login(email, PASSWORD);
      if (login.codes.length) throw new Error(`login failed: ${login.codes.join()}`);
      return Object.assign(browser, { email });
    },
  };
}

/** The behaviours of one shared store, on whichever topology `setup` runs. */
export function itSharesStateBetweenReplicas<T extends Topology>(setup: ScaleOut<T>): void {
  const { gateways, sandbox } = setup;
  const a = () => gateways[0]!;
  const b = () => gateways[1]!;

  it('asks the upstream for the definitions once for 20 requests on both replicas', async () => {
    // The topology is new for this file: the shared entry is cold.
    const users = [await setup.login(a()), await setup.login(b())];
    expect(await definitionsCallsForConcurrentReads(sandbox.url, users)).toBe(1);
  });

  it('keeps a session made on one replica on the other, with its upstream credential', async () => {
    const browser = await setup.login(a());
    const onB = browser.on(b());
    expect((await onB.graphql(SESSION)).body.data?.session).toEqual({ uid: browser.email });
    expect((await onB.graphql(GREETING)).codes).toEqual([]);
  });

  it('ends a session on the other replica on the very next request after a logout', async () => {
    const browser = await setup.login(a());
    const onB = browser.on(b());
    // B remembers the session for a moment (SESSION_CACHE_TTL): only the invalidation message stops it.
    expect((await onB.graphql(GREETING)).codes).toEqual([]);
    expect((await onB.graphql(GREETING)).codes).toEqual([]);
    expect((await browser.graphql('mutation { logout }')).body.data).toEqual({ logout: true });
    const next = await onB.graphql(GREETING);
    expect(next.codes).toEqual(['UNAUTHENTICATED']);
    expect((await onB.graphql(SESSION)).body.data?.session).toBeNull();
  });

  it('counts login attempts on both replicas against one limit, atomically', async () => {
    const { email } = await setup.login(a());
    const address = randomAddress();
    const attempt = (index: number, password: string) => new ProxiedBrowser(gateways[index % 2]!.url, address).login(email, password);
    for (let index = 0; index < 3; index++) expect((await attempt(index, 'wrong-password-000000')).codes).toEqual(['INVALID_CREDENTIALS']);
    const refused = await attempt(3, PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.codes).toEqual(['RATE_LIMITED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // 20 at once on another account (this one's own limit has two attempts left), half on each
    // replica: exactly three admitted.
    const { email: second } = await setup.login(b());
    const other = randomAddress();
    const answers = await Promise.all(Array.from({ length: 20 }, (_, index) => new ProxiedBrowser(gateways[index % 2]!.url, other).login(second, 'wrong-password-000000')));
    const codes = answers.map((answer) => answer.codes.join());
    expect(codes.filter((code) => code === 'INVALID_CREDENTIALS')).toHaveLength(3);
    expect(codes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(17);
  });
}

/** The gateways' logs hold no cross-slot refusal and each gateway started once (no restart). */
export function itLogsNoCrossSlotErrorAndNoRestart<T extends Topology>(setup: ScaleOut<T>): void {
  it('logged no cross-slot refusal and started each gateway once', () => {
    for (const gateway of setup.gateways) {
      const output = gateway.output();
      expect(output).not.toContain('CROSSSLOT');
      expect(output.match(/"event":"gateway\.started"/g)).toHaveLength(1);
    }
  });
}
