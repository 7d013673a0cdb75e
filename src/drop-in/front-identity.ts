/**
 * An API client on the drop-in front as an identity: its own upstream credential, from its
 * headers, which the upstream accepted recently (verified-credentials.ts; the front passed any
 * other request through to the upstream, so caches may answer for this one). The upstream's
 * credential headers go back to the client; an upstream 401 is passed on as the upstream's answer.
 */
import type { UpstreamCredential } from '../upstream/credential';
import { credentialFromHeaders } from '../upstream/credential';
import type { DerivedKeys } from '../derived-keys';
import { environmentNamed, type Environment } from '../environment';
import { gatewayError } from '../errors';
import type { IdentityDescription, IdentityStrategy, RequestIdentity } from '../identity/strategy';
import type { UpstreamTarget } from '../upstream/target';
import { frontRequestOf } from './front-paths';
import { credentialHeadersOf } from './pass-through';
import type { DropInState, DropInStates } from './state';
import { credentialDigest, type VerifiedCredentials } from './verified-credentials';

export interface DropInDependencies {
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  readonly verified: VerifiedCredentials;
  /** Names the rate-limit key (a Redis key) by an HMAC, never a bare hash of the uid. */
  readonly keys: Pick<DerivedKeys, 'name'>;
  readonly clock: () => number;
  /** The drop-in front's state of each request (drop-in/state.ts). */
  readonly dropIn: DropInStates;
}

const MAX_UID = 254;

/**
 * The upstream a front request acts on (the path's prefix, else `X-Upstream-Environment`), the
 * sandbox by default. A prefix contradicted by the header was refused before (useDropInFront).
 */
export function frontTarget(upstreams: DropInDependencies['upstreams'], request: Request): UpstreamTarget {
  const environment = frontRequestOf(request)?.environment ?? environmentNamed(request.headers.get('x-upstream-environment'));
  return environment === 'production' ? upstreams.production : upstreams.sandbox;
}

export class DropInIdentity implements RequestIdentity {
  readonly cacheTrusted = true;
  readonly key: string;

  constructor(
    private readonly dependencies: DropInDependencies,
    private readonly state: DropInState,
    readonly upstream: UpstreamTarget,
    private current: UpstreamCredential,
  ) {
    this.key = `front:${credentialDigest(current)}`;
  }

  get uid(): string {
    return this.current.uid;
  }
  get rateLimitKey(): string {
    // One API client's credential, as a browser's session: its environment, uid and client.
    return `front:${this.dependencies.keys.name('front rate', this.upstream.environment, this.current.uid, this.current.client)}`;
  }
  get description(): IdentityDescription {
    return { actor: 'drop-in', uid: this.current.uid.slice(0, MAX_UID), environment: this.upstream.environment };
  }

  credential(): UpstreamCredential {
    return this.current;
  }

  async answered(response: Response): Promise<void> {
    const answered = credentialHeadersOf(response.headers);
    // A blank (batch-window) answer never replaces a real token another call of this request got.
    if (answered && (answered['access-token']?.trim() || !this.state.credentialHeaders)) this.state.credentialHeaders = answered;
    // Only an answer with devise's headers for this uid and client says the upstream
    // authenticated the credential (some operations, such as confirmRegistration, need none).
    const authenticated = answered?.uid === this.current.uid && answered.client === this.current.client;
    if (!response.ok || !authenticated) return;
    const rotated = credentialFromHeaders((name) => response.headers.get(name));
    const changed = rotated !== undefined && rotated.accessToken !== this.current.accessToken;
    if (changed) this.current = rotated;
    const accepted = changed ? rotated : { ...this.current, ...(rotated?.expiry ? { expiry: rotated.expiry } : {}) };
    await this.dependencies.verified.remember(this.upstream.cacheNamespace, accepted, this.dependencies.clock());
  }

  async refused(response: Response): Promise<void> {
    const body = await response.text().catch(() => '');
    const headers: Record<string, string> = { 'cache-control': 'no-store' };
    const type = response.headers.get('content-type');
    if (type) headers['content-type'] = type;
    // The client gets the upstream's own answer (useDropInFront).
    this.state.refusal = { status: 401, headers, body };
    // Signed out elsewhere: no cached answer may be served for it from now on (it is passed through).
    await this.dependencies.verified.forget(this.upstream.cacheNamespace, this.current);
    throw gatewayError('UNAUTHENTICATED');
  }
}

/** Every GraphQL request on the front; one without a verified credential was passed through before. */
export function dropInStrategy(dependencies: DropInDependencies): IdentityStrategy {
  return {
    // API clients written for the upstream send their own documents.
    presented(request) {
      return dependencies.dropIn.of(request) ? { queryTexts: true } : undefined;
    },

    identify(request) {
      const state = dependencies.dropIn.of(request);
      if (!state) return undefined;
      const presented = state.verified;
      if (!presented) return Promise.resolve({ refusal: gatewayError('UNAUTHENTICATED') });
      state.presented = presented;
      return Promise.resolve({ identity: new DropInIdentity(dependencies, state, frontTarget(dependencies.upstreams, request), presented) });
    },
  };
}
