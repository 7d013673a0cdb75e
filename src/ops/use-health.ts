/**
 * `/healthcheck`: 200 while the process runs. `/readiness`: whether this replica should be sent
 * traffic, which is only a matter of its own life: 200 from start until SIGTERM, 503 before and
 * after. A shared dependency that is down (the session or cache store, an upstream) never makes it
 * 503: every replica shares it, so a load balancer would pull them all, and the answers that still
 * work (stale definitions, cached reads, clear error codes) would become connection errors. The
 * body names each dependency `up` or `down` (never a URL or a secret), `degraded` while any is down,
 * and the states last found are the `statement_gateway_dependency_up` gauge, what to alert on.
 */
import type { Plugin } from 'graphql-yoga';
import type { Environment } from '../environment';
import { jsonResponse } from '../errors/json-response';
import type { CacheStore } from '../cache/cache-store';
import type { SessionStore } from '../session/session-store';
import type { UpstreamTarget } from '../upstream/target';
import type { Lifecycle } from '../observability/lifecycle';
import type { Dependency, DependencyStates, GatewayMetrics } from '../observability/metrics';

export interface HealthOptions {
  readonly sessionStore: Pick<SessionStore, 'ping'>;
  readonly cacheStore: Pick<CacheStore, 'ping'>;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  readonly clock: () => number;
  /** The gateway's phase: /readiness is 200 only while it is `serving`. */
  readonly lifecycle: Pick<Lifecycle, 'phase'>;
  /** Given the states last found, for its gauge (a scrape asks no dependency). */
  readonly metrics?: Pick<GatewayMetrics, 'observeDependencies'>;
  /** How long each dependency may take to answer (probes usually give up after a second). */
  readonly timeoutMs?: number;
  /**
   * How long one set of dependency states is reused. /readiness needs no login: without this,
   * every hit would cost two store round trips and two upstream calls (an amplifier for anyone who
   * can reach it).
   */
  readonly cacheMs?: number;
}

async function withTimeout(run: () => Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([run(), new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('timeout')), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

/** Any answer below 500 shows the upstream is up (its GraphQL endpoint refuses GET). */
async function pingUpstream(target: UpstreamTarget, timeoutMs: number): Promise<void> {
  const response = await fetch(target.graphqlUrl, { signal: AbortSignal.timeout(timeoutMs) });
  await response.body?.cancel();
  if (response.status >= 500) throw new Error(`status ${response.status}`);
}

export function useHealth({ sessionStore, cacheStore, upstreams, clock, lifecycle, metrics, timeoutMs = 900, cacheMs = 1_000 }: HealthOptions): Plugin {
  const checks: Readonly<Record<Dependency, () => Promise<void>>> = {
    sessionStore: () => sessionStore.ping(),
    cacheStore: () => cacheStore.ping(),
    upstreamSandbox: () => pingUpstream(upstreams.sandbox, timeoutMs),
    upstreamProduction: () => pingUpstream(upstreams.production, timeoutMs),
  };
  const assess = async (): Promise<DependencyStates> => {
    const entries = await Promise.all(
      Object.entries(checks).map(async ([dependency, check]) => {
        try {
          await withTimeout(check, timeoutMs);
          return [dependency, 'up'] as const;
        } catch {
          return [dependency, 'down'] as const;
        }
      }),
    );
    return Object.fromEntries(entries) as DependencyStates;
  };
  let latest: { at: number; states: Promise<DependencyStates> } | undefined;
  /** The last states found, for answers that must not wait for a slow dependency. */
  let known: DependencyStates | undefined;
  const dependencies = (): Promise<DependencyStates> => {
    const now = clock();
    if (!latest || now - latest.at >= cacheMs) {
      latest = { at: now, states: assess() };
      void latest.states.then((states) => (known = states));
    }
    return latest.states;
  };
  metrics?.observeDependencies(() => known);

  const readiness = async () => {
    const { phase } = lifecycle;
    // At once: a stopping replica must leave the load balancer's pool without delay.
    if (phase !== 'serving') return jsonResponse(503, { status: phase, dependencies: known ?? {} });
    const states = await dependencies();
    const degraded = Object.values(states).includes('down');
    return jsonResponse(200, { status: degraded ? 'degraded' : 'ready', dependencies: states });
  };

  return {
    onRequest(payload) {
      const { url } = payload;
      if (url.pathname === '/healthcheck') {
        payload.endResponse(jsonResponse(200, { status: 'ok' }));
        return;
      }
      if (url.pathname !== '/readiness') return;
      return readiness().then((response) => payload.endResponse(response));
    },
  };
}
