/**
 * An internal service as an identity: `Authorization: Bearer <api key>` names a service account,
 * within its own requests-per-minute limit, acting with the account's shared credential. An
 * upstream 401 triggers one re-sign-in and one retry per request, never a loop.
 */
import type { UpstreamCredential } from './types';
import { credentialFromHeaders } from './types';
import type { Environment } from '../environment';
import { findGatewayError, gatewayError } from '../errors';
import type { IdentityDescription, IdentityStrategy, RequestIdentity } from '../identity/identity';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import { overLimit, type RateLimitStore } from '../protection/rate-limiter';
import type { UpstreamTarget } from '../upstream/target';
import type { ServiceAccounts } from './index';
import { bearerKey, type CredentialLease, type ServiceAccount } from './service-accounts';

export interface ServiceAccountDependencies {
  readonly serviceAccounts: ServiceAccounts;
  /** Each account's requestsPerMinute, shared by replicas (failing open). */
  readonly rateLimits: RateLimitStore;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
}

const RATE_WINDOW_MS = 60_000;

export class ServiceAccountIdentity implements RequestIdentity {
  readonly cacheTrusted = true;
  readonly rateLimitKey = undefined;
  /** The one re-sign-in after an upstream 401 was spent. */
  private renewed = false;

  constructor(
    private readonly dependencies: ServiceAccountDependencies,
    readonly account: ServiceAccount,
    private lease: CredentialLease,
  ) {}

  get uid(): string {
    return this.lease.credential.uid;
  }
  get upstream(): UpstreamTarget {
    return this.dependencies.upstreams[this.account.environment];
  }
  get key(): string {
    return `account:${this.account.name}`;
  }
  get description(): IdentityDescription {
    return { actor: 'service-account', account: this.account.name, environment: this.account.environment };
  }

  credential(): UpstreamCredential {
    return this.lease.credential;
  }

  async answered(response: Response): Promise<void> {
    const rotated = credentialFromHeaders((name) => response.headers.get(name));
    if (!rotated || rotated.accessToken === this.lease.credential.accessToken) return;
    const { serviceAccounts, log } = this.dependencies;
    // Compare-and-set: an older token never overwrites a newer one when answers race.
    const kept = await serviceAccounts.credentials.rotated(this.account, this.lease, rotated);
    log.credentialRotated({ environment: this.account.environment, kept: kept !== undefined });
    if (kept) this.lease = kept;
  }

  async refused(response: Response): Promise<void> {
    await response.body?.cancel().catch(() => undefined);
    if (this.renewed) throw gatewayError('UNAUTHENTICATED', 'The upstream refused the service account\'s credential.');
    this.renewed = true;
    try {
      this.lease = await this.dependencies.serviceAccounts.credentials.renew(this.account, this.lease);
    } catch (error) {
      throw findGatewayError(error) ?? gatewayError('UNAUTHENTICATED');
    }
  }
}

export function serviceAccountStrategy(dependencies: ServiceAccountDependencies): IdentityStrategy {
  const { serviceAccounts, rateLimits, log, metrics } = dependencies;
  return {
    identify(request) {
      // Only the Bearer scheme names an API key. Another scheme (a browser's Basic credentials
      // for the /ops page, say) is not meant for this endpoint: the request is anonymous.
      const header = request.headers.get('authorization');
      if (header === null || !/^\s*bearer\b/i.test(header)) return undefined;
      return (async () => {
        const key = bearerKey(header);
        const account = key === undefined ? undefined : serviceAccounts.verify(key);
        if (!account) {
          log.apiKeyRejected();
          metrics.apiKeyRejected();
          return { refusal: gatewayError('UNAUTHENTICATED', 'Unknown API key.') };
        }
        const decision = await rateLimits.hit(`account:${account.name}`, account.requestsPerMinute, RATE_WINDOW_MS);
        if (!decision.allowed) return { refusal: overLimit({ log, metrics }, 'service-account', decision) };
        try {
          return { identity: new ServiceAccountIdentity(dependencies, account, await serviceAccounts.credentials.lease(account)) };
        } catch (error) {
          return { refusal: findGatewayError(error) ?? gatewayError('UPSTREAM_UNAVAILABLE', undefined, { cause: error }) };
        }
      })();
    },
  };
}
