/**
 * The operator endpoints of one gateway (src/ops/), each built once, and which port serves them.
 * Without OPS_PORT, every one in the gateway's Yoga pipeline on the traffic port. With it, the ops
 * listener serves them all, as plain functions without Yoga (every other path is 404 there), and
 * the traffic port keeps only the probes: an ingress that exposes PORT never exposes /metrics or
 * /ops/, and a connection flood on PORT leaves the probes their own listener.
 * The OPS_TOKEN rule (src/ops/access.ts) is the same on both ports.
 */
import type { RequestListener } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import { createOpsAccess } from '../ops/access';
import { serveOpsEndpoints, type OpsEndpoint } from '../ops/endpoint';
import { healthEndpoint } from '../ops/use-health';
import { metricsEndpoint } from '../ops/use-metrics';
import { opsPageEndpoint } from '../ops/use-ops-page';
import { sessionRevokeEndpoint } from '../ops/session-revoke';
import { upstreamSchemaEndpoint } from '../ops/upstream-schema';
import { cachePurgeEndpoint } from '../ops/cache-purge';
import { createCachePurge } from '../cache/purge';
import type { GatewayRuntime } from './runtime';

export interface OperatorEndpoints {
  /** What the traffic port's pipeline serves (plugins.ts): all of them, or the probes alone with OPS_PORT. */
  readonly onTrafficPort: readonly OpsEndpoint[];
  /** With OPS_PORT, the ops listener: its port and its handler (which server.ts puts behind the edge); undefined without. */
  readonly opsListener?: { readonly port: number; readonly listener: RequestListener };
}

export function operatorEndpoints(runtime: GatewayRuntime): OperatorEndpoints {
  const { config, metrics, clock } = runtime;
  // /metrics and /ops: OPS_TOKEN when set, else loopback only.
  const access = createOpsAccess({ ...(config.opsToken ? { token: config.opsToken } : {}), trustProxy: config.trustProxy });
  // Built once: the readiness gauge is registered once, the page keeps one instance id.
  const probes = healthEndpoint({ dependencies: runtime.dependencies, lifecycle: runtime.lifecycle, metrics });
  // The revoke, the purge and the upstream schema before the page, which claims the rest of /ops/.
  const revoke = sessionRevokeEndpoint({ revoke: (environment, uid) => runtime.userSessions.revoke(environment, uid), access, names: runtime.keys, log: runtime.log, health: runtime.sessionStoreHealth, trustProxy: config.trustProxy });
  const purge = cachePurgeEndpoint({ purge: createCachePurge({ ...runtime.caches.purgeStores, upstreams: runtime.upstreams, metrics, clock }), access, names: runtime.keys, log: runtime.log, trustProxy: config.trustProxy });
  const upstreamSchema = () => runtime.upstreamSchema.statuses();
  const schema = upstreamSchemaEndpoint({ statuses: upstreamSchema, access, log: runtime.log, trustProxy: config.trustProxy });
  const operators = [metricsEndpoint({ metrics, access }), revoke, purge, schema, opsPageEndpoint({ metrics, access, clock, upstreamSchema })];
  if (config.opsPort === undefined) return { onTrafficPort: [probes, ...operators] };
  // whatwg-node's adapter, as under Yoga: the same Request, and the same server context (`{ req }`)
  // that the loopback rule reads the socket's address from.
  const listener = createServerAdapter(serveOpsEndpoints([probes, ...operators])).requestListener;
  return { onTrafficPort: [probes], opsListener: { port: config.opsPort, listener } };
}
