/**
 * A gateway process whose dependencies go down one at a time: its session Redis, its cache Redis
 * (both servers of the test's own, stopped and started again), then each upstream (answering 503
 * through the emulator's settings). /readiness stays 200 throughout, `degraded` naming the one that
 * is down, and `statement_gateway_dependency_up` says the same; once it is back, `ready` again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, useEmulator } from '../support/emulator';
import { startGatewayProcess, TEST_CREDENTIAL_KEY } from '../support/gateway';
import type { Launched } from '../support/launcher';
import { ownRedis, type OwnRedis } from '../support/redis-server';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
let sessions: OwnRedis | undefined;
let caches: OwnRedis | undefined;
let gateway: Launched | undefined;

beforeAll(async () => {
  [sessions, caches] = await Promise.all([ownRedis(), ownRedis()]);
  await Promise.all([sessions.start(), caches.start()]);
  gateway = await startGatewayProcess({
    UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url,
    REDIS_URL: sessions.url, CACHE_REDIS_URL: caches.url, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
  });
}, 90_000);
afterAll(async () => {
  await gateway?.stop({ forceAfterMs: 5_000 });
  await Promise.all([sessions?.stop(), caches?.stop()]);
});

type Dependency = 'sessionStore' | 'cacheStore' | 'upstreamSandbox' | 'upstreamProduction';
interface Readiness {
  readonly httpStatus: number;
  readonly status: string;
  readonly dependencies: Record<Dependency, 'up' | 'down'>;
}

async function readiness(): Promise<Readiness> {
  const response = await fetch(`${gateway?.url ?? ''}/readiness`);
  const body = (await response.json()) as Omit<Readiness, 'httpStatus'>;
  return { httpStatus: response.status, ...body };
}

/** Polls until `dependency` is reported `state` (states are reused for a second), each answer 200. */
async function until(dependency: Dependency, state: 'up' | 'down'): Promise<Readiness> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await readiness();
    expect(answer.httpStatus).toBe(200);
    if (answer.dependencies[dependency] === state || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function gauge(dependency: Dependency): Promise<string | undefined> {
  const text = await (await fetch(`${gateway?.url ?? ''}/metrics`)).text();
  return new RegExp(`^statement_gateway_dependency_up\\{dependency="${dependency}"\\} (\\d)$`, 'm').exec(text)?.[1];
}

const failing = (url: string, failStatus: number | null) => control(url, 'PATCH', '/__emulator/settings', { failStatus });

const outages: [Dependency, () => Promise<unknown>, () => Promise<unknown>][] = [
  ['sessionStore', () => sessions?.stop() ?? Promise.resolve(), () => sessions?.start() ?? Promise.resolve()],
  ['cacheStore', () => caches?.stop() ?? Promise.resolve(), () => caches?.start() ?? Promise.resolve()],
  ['upstreamSandbox', () => failing(sandbox.url, 503), () => failing(sandbox.url, null)],
  ['upstreamProduction', () => failing(production.url, 503), () => failing(production.url, null)],
];

describe('readiness while one dependency after another is down', () => {
  it('is 200 ready with every dependency up', async () => {
    expect(await until('sessionStore', 'up')).toEqual({
      httpStatus: 200, status: 'ready', dependencies: { sessionStore: 'up', cacheStore: 'up', upstreamSandbox: 'up', upstreamProduction: 'up' },
    });
  });

  for (const [dependency, down, up] of outages) {
    it(`stays 200, degraded, while ${dependency} is down (the gauge at 0), and is ready again once it is back`, async () => {
      await down();
      const degraded = await until(dependency, 'down');
      expect(degraded).toMatchObject({ httpStatus: 200, status: 'degraded' });
      expect(Object.entries(degraded.dependencies).filter(([, state]) => state === 'down')).toEqual([[dependency, 'down']]);
      expect(await gauge(dependency)).toBe('0');
      await up();
      expect(await until(dependency, 'up')).toMatchObject({ httpStatus: 200, status: 'ready' });
      expect(await gauge(dependency)).toBe('1');
    }, 30_000);
  }
});
