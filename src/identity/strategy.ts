/**
 * Who a request acts as, as strategies. Each kind of caller (a browser session, a service account,
 * an API client's own credential on the drop-in front) lives in its own folder and implements
 * `RequestIdentity`; the plugins that need an identity (the credential broker, caches, limits, the
 * audit trail) ask it rather than switch on its kind.
 */
import type { UpstreamCredential } from '../upstream/credential';
import type { Environment } from '../environment';
import type { GatewayError } from '../errors';
import type { UpstreamTarget } from '../upstream/target';

/** How the audit trail names an identity (never a credential). */
export interface IdentityDescription {
  readonly actor: 'session' | 'service-account' | 'drop-in';
  readonly environment: Environment;
  readonly uid?: string;
  readonly account?: string;
  readonly session?: string;
}

export interface RequestIdentity {
  /** The upstream user (an e-mail), for logs and cache scopes. */
  readonly uid: string;
  /** Where its upstream calls go. */
  readonly upstream: UpstreamTarget;
  /**
   * Distinguishes identities in the upstream executor's in-flight deduplication (see .meshrc.ts):
   * a hash, never sent upstream.
   */
  readonly key: string;
  /** Whether caches may answer for it without asking the upstream. */
  readonly cacheTrusted: boolean;
  /** Its counter for RATE_LIMIT_SESSION; none when it has a limit of its own. */
  readonly rateLimitKey: string | undefined;
  readonly description: IdentityDescription;
  /** The credential for the next upstream call (it may change within a request). */
  credential(): UpstreamCredential;
  /** Every upstream answer but a 401: keeps what it says about the credential (a rotated token). */
  answered(response: Response): Promise<void>;
  /**
   * An upstream 401. Resolves when the call may be made once more (a renewed credential); else
   * throws the GatewayError the client gets.
   */
  refused(response: Response): Promise<void>;
}

/** What a strategy found: an identity, a refusal for the client, or an anonymous caller. */
export type IdentityVerdict =
  | { readonly identity: RequestIdentity }
  | { readonly refusal: GatewayError }
  | { readonly anonymous: true };

/**
 * What a request's headers alone say about the identity it presents, before its document is
 * parsed and before any store is asked: whether it may send query texts when
 * TRUSTED_DOCUMENTS_ONLY is set, or the refusal it gets whatever it sends.
 */
export type PresentedIdentity = { readonly queryTexts: boolean } | { readonly refusal: GatewayError };

/** What the request does, as far as identifying it cares. */
export interface IdentifyOptions {
  /** false for a request that must not move a session's idle timeout on (`session(touch: false)`); default true. */
  readonly activity?: boolean;
}

export interface IdentityStrategy {
  /** undefined when the request does not present this kind of identity: the next strategy is asked. */
  identify(request: Request, options?: IdentifyOptions): Promise<IdentityVerdict> | undefined;
  /** undefined exactly when `identify` is. */
  presented(request: Request): PresentedIdentity | undefined;
}

export const ANONYMOUS: IdentityVerdict = { anonymous: true };
