/**
 * What the gateway's plugins and resolvers share for the life of the process: configuration,
 * stores, the upstream client and the logger. `src/main.ts` builds it; `.meshrc.ts` can only name
 * files (its functions would not survive `mesh build`), so the plugin entry reads it from here.
 */
import type { Redis } from 'ioredis';
import type { Caches } from '../cache';
import type { GatewayConfig } from '../config';
import type { Environment } from '../environment';
import type { ServiceAccounts } from '../credentials';
import type { UpstreamTarget } from '../upstream/target';
import type { VerifiedCredentials } from '../drop-in/verified-credentials';
import type { LoginLimits } from '../protection/login-limits';
import type { RateLimitStore } from '../protection/rate-limiter';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import type { Sessions } from '../session/sessions';
import type { UpstreamFetch } from '../upstream/fetch';

export interface GatewayRuntime {
  readonly config: GatewayConfig;
  readonly log: LogEvents;
  readonly sessions: Sessions;
  /** Reachability of the session store, as requests last saw it. */
  readonly sessionStoreHealth: StoreHealth;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  readonly upstreamFetch: UpstreamFetch;
  readonly metrics: GatewayMetrics;
  readonly caches: Caches;
  readonly serviceAccounts: ServiceAccounts;
  /** Request-rate limits, shared by replicas through the session store's Redis (failing open). */
  readonly rateLimits: RateLimitStore;
  /** The same counters failing closed (they throw while Redis is away): for `login`. */
  readonly rateLimitsFailClosed: RateLimitStore;
  /** Login limits (per address, address and e-mail, account), for `login` and the front's sign-in. */
  readonly loginLimits: LoginLimits;
  /** The drop-in front's record of credentials the upstream accepted. */
  readonly front: { readonly verified: VerifiedCredentials };
  /** The Redis of sessions and credentials, when configured. */
  readonly redis?: Redis;
  readonly clock: () => number;
}

let current: GatewayRuntime | undefined;

export function installRuntime(runtime: GatewayRuntime | undefined): void {
  current = runtime;
}

export function installedRuntime(): GatewayRuntime | undefined {
  return current;
}

