/** The GraphQL context the gateway's plugins and resolvers share, and the per-request state. */
import type { FieldNode, OperationDefinitionNode } from 'graphql';
import type { GatewayError } from '../errors';
import type { CredentialLease, ServiceAccount } from '../credentials/service-accounts';
import type { UpstreamCredential } from '../credentials/types';
import type { UpstreamTarget } from '../upstream/target';
import type { GatewayRuntime } from './runtime';
import type { ActiveSession } from '../session/sessions';

/** A browser: the cookie's session. */
export interface SessionIdentity {
  readonly kind: 'session';
  session: ActiveSession;
}

/** An internal service: an API key's account, with the shared credential this request uses. */
export interface ServiceAccountIdentity {
  readonly kind: 'service-account';
  readonly account: ServiceAccount;
  lease: CredentialLease;
  /** The one re-sign-in after an upstream 401 was spent. */
  renewed?: boolean;
}

/** An existing API client on the drop-in front: its own upstream credential, from its headers. */
export interface DropInIdentity {
  readonly kind: 'drop-in';
  credential: UpstreamCredential;
  /**
   * The upstream accepted this credential recently (see front/verified-credentials): only then may
   * a cache answer without the upstream, which alone can check a token. The front passes any
   * other credential through to the upstream, so a drop-in identity is always verified today.
   */
  readonly verified: boolean;
}

export type RequestIdentity = SessionIdentity | ServiceAccountIdentity | DropInIdentity;

/** The upstream credential a request acts with. */
export function credentialOf(identity: RequestIdentity): UpstreamCredential {
  switch (identity.kind) {
    case 'session':
      return identity.session.credential;
    case 'service-account':
      return identity.lease.credential;
    case 'drop-in':
      return identity.credential;
  }
}

/** The browser session of a request, if it acts as one. */
export function sessionOf(identity: RequestIdentity | undefined): ActiveSession | undefined {
  return identity?.kind === 'session' ? identity.session : undefined;
}

/** Whether caches may answer for this identity without asking the upstream. */
export function trustedForCache(identity: RequestIdentity | undefined): boolean {
  return identity !== undefined && (identity.kind !== 'drop-in' || identity.verified);
}

/** What the drop-in front needs to answer as the upstream would. */
export interface DropInState {
  /** The upstream refused the client's credential: its answer, passed on as it was. */
  refusal?: { readonly status: number; readonly headers: Record<string, string>; readonly body: string };
  /** The client's credential (with the `expiry` remembered for it), echoed when no upstream call answered. */
  presented?: UpstreamCredential;
  /** Credential headers of the upstream's last answer (blank batch-window values included). */
  credentialHeaders?: Record<string, string>;
}

/** Lives from `onRequest` to `onResponse`, keyed by the Request (Yoga's response hooks see no context). */
export interface RequestState {
  readonly startedAt: number;
  /** The session id from the cookie, when one was sent. */
  readonly cookieId: string | undefined;
  /** The client's address (socket, or X-Forwarded-For within TRUST_PROXY), for limits. */
  readonly clientAddress?: string;
  /** Set-Cookie values to add to the response. */
  readonly setCookies: string[];
  /** Root fields of the executed operation, for logs. */
  operation?: string;
  /** The upstream user the request acted as, once known (for logs; never a credential). */
  uid?: string;
  /** The e-mail a sign-in through the drop-in front tried (for the audit line of a refused one). */
  signInEmail?: string;
  /** The executed operation and its root fields, found once (useSessionAuth) for every plugin after it. */
  executed?: { readonly operation: OperationDefinitionNode; readonly fields: readonly FieldNode[] };
  /** At least one upstream call got an HTTP answer. */
  upstreamAnswered: boolean;
  /** Set on the drop-in front's `/v2/graphql`. */
  dropIn?: DropInState;
  /** The last upstream failure the broker raised (Mesh may lose it on the way to the result). */
  upstreamFailure?: GatewayError;
}

export interface GatewayContext {
  readonly request: Request;
  readonly gateway: GatewayRuntime;
  readonly state: RequestState;
  /** Where upstream calls of this request go (interpolated into the Mesh source endpoints). */
  upstream: UpstreamTarget;
  identity?: RequestIdentity;
  /**
   * Distinguishes identities in the upstream executor's in-flight deduplication (see
   * .meshrc.ts). The session's store key: a hash, never sent upstream.
   */
  identityKey?: string;
}

const states = new WeakMap<Request, RequestState>();

export function stateOf(request: Request): RequestState | undefined {
  return states.get(request);
}

export function attachState(request: Request, state: RequestState): void {
  states.set(request, state);
}

export function isGatewayContext(value: unknown): value is GatewayContext {
  return typeof value === 'object' && value !== null && 'gateway' in value && 'state' in value && 'upstream' in value;
}


