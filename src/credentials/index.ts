/** Non-browser identities: service accounts (API keys) and their shared upstream credentials. */
import type { RedisClient } from '../redis';
import type { Locks } from '../cache/cache-store';
import type { GatewayConfig } from '../config';
import type { Environment } from '../environment';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import { createMemoryAccountStore, createRedisAccountStore } from './account-store';
import type { CredentialCipher } from './cipher';
import { apiKeyVerifier, ServiceAccountCredentials, type ServiceAccount } from './service-accounts';
import type { UpstreamTarget } from '../upstream/target';
import type { UpstreamAuth } from './upstream-auth';

export interface ServiceAccounts {
  /** The account an API key names, or undefined (constant time in the key). */
  readonly verify: (key: string) => ServiceAccount | undefined;
  readonly credentials: ServiceAccountCredentials;
  readonly count: number;
}

export interface ServiceAccountsOptions {
  readonly config: GatewayConfig;
  readonly redis?: RedisClient;
  readonly locks: Locks;
  readonly cipher: CredentialCipher;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  /** How the accounts sign in upstream (the runtime's handle on Mesh's sign-in). */
  readonly auth: UpstreamAuth;
  readonly storeHealth: StoreHealth;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  readonly clock: () => number;
}

export function createServiceAccounts(options: ServiceAccountsOptions): ServiceAccounts {
  const { config, upstreams, auth } = options;
  return {
    verify: apiKeyVerifier(config.serviceAccounts),
    count: config.serviceAccounts.length,
    credentials: new ServiceAccountCredentials({
      store: options.redis ? createRedisAccountStore(options.redis) : createMemoryAccountStore(options.clock),
      locks: options.locks,
      cipher: options.cipher,
      signIn: (account) => auth.signIn(upstreams[account.environment], account.email, account.password),
      storeHealth: options.storeHealth,
      log: options.log,
      metrics: options.metrics,
      lockMs: config.serviceAccountLockMs,
      clock: options.clock,
    }),
  };
}
