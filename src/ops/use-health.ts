/**
 * `/healthcheck`: 200 while the process runs. `/readiness`: whether this replica should be sent
 * traffic, which is only a matter of its own life: 200 from start until SIGTERM, 503 before and
 * after. A shared dependency that is down (the session or cache store, an upstream) never makes it
 * 503: every replica shares it, so a load balancer would pull them all, and the answers that still
 * work (stale definitions, cached reads, clear error codes) would become connection errors. The
 * body names each dependency `up` or `down` (never a URL or a secret), `degraded` while any is down,
 * and the states last found are the `statement_gateway_dependency_up` gauge, what to alert on.
 *
 * Nothing here waits: the states come from the background checks (dependency-watch.ts), so the
 * answer is as fast with a hanging upstream as without, and its phase is read when it is written.
 */
import type { Plugin } from 'graphql-yoga';
import { jsonResponse } from '../errors/json-response';
import type { Lifecycle } from '../observability/lifecycle';
import type { DependencyStates, GatewayMetrics } from '../observability/metrics';
import type { DependencyWatch } from './dependency-watch';
import { useOpsEndpoint, type OpsEndpoint } from './endpoint';

export interface HealthOptions {
  /** The dependencies' states, checked in the background; the first /readiness starts the checks. */
  readonly dependencies: Pick<DependencyWatch, 'watch' | 'states'>;
  /** The gateway's phase: /readiness is 200 only while it is `serving`. */
  readonly lifecycle: Pick<Lifecycle, 'phase'>;
  /** Given the states last found, for its gauge (a scrape asks no dependency). */
  readonly metrics?: Pick<GatewayMetrics, 'observeDependencies'>;
}

const DEPENDENCIES = ['sessionStore', 'cacheStore', 'upstreamSandbox', 'upstreamProduction'] as const;

/** All four states once each was found once; the gauge shows no series before (as before any check). */
function complete(states: Partial<DependencyStates>): DependencyStates | undefined {
  const [sessionStore, cacheStore, upstreamSandbox, upstreamProduction] = DEPENDENCIES.map((dependency) => states[dependency]);
  if (!sessionStore || !cacheStore || !upstreamSandbox || !upstreamProduction) return undefined;
  return { sessionStore, cacheStore, upstreamSandbox, upstreamProduction };
}

/** `/healthcheck` and `/readiness` (ops/endpoint.ts), on both ports when OPS_PORT is set. */
export function healthEndpoint({ dependencies, lifecycle, metrics }: HealthOptions): OpsEndpoint {
  metrics?.observeDependencies(() => complete(dependencies.states()));

  const readiness = () => {
    dependencies.watch();
    const states = dependencies.states();
    const { phase } = lifecycle;
    if (phase !== 'serving') return jsonResponse(503, { status: phase, dependencies: states });
    const degraded = Object.values(states).includes('down');
    return jsonResponse(200, { status: degraded ? 'degraded' : 'ready', dependencies: states });
  };

  return (request, _serverContext, { pathname } = new URL(request.url)) => {
    if (pathname === '/healthcheck') return jsonResponse(200, { status: 'ok' });
    if (pathname === '/readiness') return readiness();
    return undefined;
  };
}

/** The same, as a plugin of the Yoga pipeline. */
export function useHealth(options: HealthOptions): Plugin {
  return useOpsEndpoint(healthEndpoint(options));
}
