/**
 * The GraphQL context the gateway's plugins and resolvers share: the request, who it acts as and
 * where its upstream calls go (identity/use-identity.ts), and what the gateway's own resolvers use
 * (login, logout, session, statementDefinitions). Other per-request state lives in the gateway's
 * request state (request-state.ts), not here.
 */
import type { DefinitionsCache } from '../cache/definitions-cache';
import type { IdentityContext } from '../identity/use-identity';
import type { LoginLimits } from '../protection/login-limits';
import type { ClientAddresses } from '../protection/client-address';
import type { BrowserSessionDependencies } from '../session/session-identity';
import type { UpstreamAuth } from '../credentials/upstream-auth';
import type { UserSessions } from '../session/user-sessions';
import type { UpstreamOutcomes } from '../upstream/outcome';

/** What `login`, `logout`, `session` and the list of sessions need. */
export interface SessionServices extends BrowserSessionDependencies {
  readonly loginLimits: LoginLimits;
  /** Sign-in and sign-out upstream (Mesh's hidden REST operations). */
  readonly auth: UpstreamAuth;
  /** Each request's client address, for the login limits. */
  readonly addresses: ClientAddresses;
  /** `sessions`, `endSession`, `logoutEverywhere`, and the cap at login. */
  readonly userSessions: UserSessions;
}

export interface ResolverServices {
  readonly sessions: SessionServices;
  readonly definitions: DefinitionsCache;
  /** Each request's upstream outcome: the failure behind an answer the SDK lost. */
  readonly outcomes: UpstreamOutcomes;
}

export interface GatewayContext extends IdentityContext {
  readonly services: ResolverServices;
}
