/**
 * An internal service as an identity: `Authorization: Bearer <api key>` names a service account,
 * within its own requests-per-minute limit, acting with the account's shared credential. An
 * upstream 401 triggers one re-sign-in and one retry per request, never a loop.
 */
import type { UpstreamCredential } from '../upstream/credential';
import { credentialFromHeaders } from '../upstream/credential';
import type { Environment } from '../environment';
import { findGatewayError, gatewayError, GatewayError } from '../errors';
import type { IdentityDescription, IdentityStrategy, RequestIdentity } from '../identity/strategy';
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
  /** The account of the request's API key; an unknown one is logged, counted and refused. */
  const accountOf = (header: string): ServiceAccount | GatewayError => {
    const key = bearerKey(header);
    const account = key === undefined ? undefined : serviceAccounts.verify(key);
    if (account) return account;
    log.apiKeyRejected();
    metrics.apiKeyRejected();
    return gatewayError('UNAUTHENTICATED', 'Unknown API key.');
  };
  // Only the Bearer scheme names an API key. Another scheme (a browser's Basic credentials for
  // the /ops page, say) is not meant for this endpoint: the request is anonymous.
  const bearerHeader = (request: Request): string | undefined => {
    const header = request.headers.get('authorization');
    return header !== null && /^\s*bearer\b/i.test(header) ? header : undefined;
  };
  return {
    // Internal services send their own documents. The key is checked here already, so that a
    // wrong one gets UNAUTHENTICATED before its query text is parsed; the request ends with it.
    presented(request) {
      const header = bearerHeader(request);
      if (header === undefined) return undefined;
      const account = accountOf(header);
      return account instanceof GatewayError ? { refusal: account } : { queryTexts: true };
    },

    identify(request) {
      const header = bearerHeader(request);
      if (header === undefined) return undefined;
      return (async () => {
        const account = accountOf(header);
        if (account instanceof GatewayError) return { refusal: account };
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
