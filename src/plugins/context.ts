/** The GraphQL context the gateway's plugins and resolvers share, and the per-request state. */
import type { FieldNode, OperationDefinitionNode } from 'graphql';
import type { Environment } from '../config';
import type { GatewayError } from '../errors';
import type { UpstreamTarget } from '../credentials/types';
import type { GatewayRuntime } from '../runtime';
import type { ActiveSession } from '../session/sessions';

export interface SessionIdentity {
  readonly kind: 'session';
  session: ActiveSession;
}

export type RequestIdentity = SessionIdentity;

/** Lives from `onRequest` to `onResponse`, keyed by the Request (Yoga's response hooks see no context). */
export interface RequestState {
  readonly startedAt: number;
  /** The session id from the cookie, when one was sent. */
  readonly cookieId: string | undefined;
  /** Set-Cookie values to add to the response. */
  readonly setCookies: string[];
  /** Root fields of the executed operation, for logs. */
  operation?: string;
  /** The executed operation and its root fields, found once (useSessionAuth) for every plugin after it. */
  executed?: { readonly operation: OperationDefinitionNode; readonly fields: readonly FieldNode[] };
  /** At least one upstream call got an HTTP answer. */
  upstreamAnswered: boolean;
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

export function environmentFromEnum(value: unknown): Environment {
  return value === 'PRODUCTION' ? 'production' : 'sandbox';
}

export function environmentToEnum(environment: Environment): 'SANDBOX' | 'PRODUCTION' {
  return environment === 'production' ? 'PRODUCTION' : 'SANDBOX';
}
