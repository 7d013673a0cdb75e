/**
 * A browser as an identity: the session its cookie names. An upstream 401 ends the session (unless
 * a racing answer stored a newer credential meanwhile) and clears the cookie; a rotated token is
 * kept in the store for the session's next requests.
 */
import { hash } from 'node:crypto';
import type { UpstreamCredential } from '../upstream/credential';
import { credentialFromHeaders } from '../upstream/credential';
import { gatewayError } from '../errors';
import { ANONYMOUS, type IdentityDescription, type IdentityStrategy, type RequestIdentity } from '../identity/strategy';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import type { UpstreamTarget } from '../upstream/target';
import type { Environment } from '../environment';
import { clearSessionCookie, type SessionCookies } from './cookie';
import type { SetCookies } from './cookie-jar';
import { sessionAuditId, type ActiveSession, type Sessions } from './sessions';

export interface BrowserSessionDependencies {
  readonly sessions: Sessions;
  readonly health: StoreHealth;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  readonly cookieSecure: boolean;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  /** Each request's Set-Cookie values (useSessionCookies adds them to the answer). */
  readonly setCookies: SetCookies;
  /** The session id each request's cookie carries. */
  readonly sessionCookies: SessionCookies;
}

const digest = (text: string) => hash('sha256', text, 'base64url');

export class BrowserSessionIdentity implements RequestIdentity {
  readonly cacheTrusted = true;

  constructor(
    private readonly dependencies: BrowserSessionDependencies,
    private readonly request: Request,
    /** Replaced when this request's upstream answer rotated the token. */
    private current: ActiveSession,
  ) {}

  get session(): ActiveSession {
    return this.current;
  }
  get uid(): string {
    return this.current.uid;
  }
  get upstream(): UpstreamTarget {
    return this.dependencies.upstreams[this.current.environment];
  }
  get key(): string {
    return this.current.key;
  }
  get rateLimitKey(): string {
    return `session:${digest(this.current.key)}`;
  }
  get description(): IdentityDescription {
    return { actor: 'session', uid: this.current.uid, environment: this.current.environment, session: sessionAuditId(this.current.key) };
  }

  credential(): UpstreamCredential {
    return this.current.credential;
  }

  async answered(response: Response): Promise<void> {
    const { sessions, health, log } = this.dependencies;
    const rotated = credentialFromHeaders((name) => response.headers.get(name));
    if (!rotated || rotated.accessToken === this.current.credential.accessToken) return;
    const before = this.current;
    const kept = await sessions.rotate(before, rotated).catch((error: unknown) => {
      health.failed(error);
      return undefined;
    });
    log.credentialRotated({ environment: before.environment, kept: kept !== undefined });
    // Later upstream calls of this request use the newer token.
    if (kept) this.current = { ...before, credential: rotated, sealed: kept };
  }

  async refused(response: Response): Promise<void> {
    const { sessions, health, log, metrics, cookieSecure, setCookies } = this.dependencies;
    await response.body?.cancel().catch(() => undefined);
    // The upstream no longer accepts this credential: the session is over, unless a racing
    // answer stored a newer credential meanwhile (then only this request fails).
    const ended = await sessions.endIfCurrent(this.current).catch((error: unknown) => {
      health.failed(error);
      return true;
    });
    if (ended) {
      setCookies.queue(this.request, clearSessionCookie(cookieSecure));
      log.sessionRejected({ reason: 'upstream-refused' });
      metrics.session('rejected');
    }
    throw gatewayError('UNAUTHENTICATED');
  }
}

/** The browser session of a request's identity, if it acts as one. */
export function sessionOf(identity: RequestIdentity | undefined): ActiveSession | undefined {
  return identity instanceof BrowserSessionIdentity ? identity.session : undefined;
}

/**
 * The session cookie's session: one store round trip (which also extends the idle timeout, unless
 * the request is no activity: `session(touch: false)`). An
 * unknown or ended session clears the cookie and leaves the request anonymous; an unreachable
 * store fails closed with SESSION_STORE_UNAVAILABLE.
 */
export function browserSessionStrategy(dependencies: BrowserSessionDependencies): IdentityStrategy {
  const { sessions, health, log, metrics, cookieSecure, setCookies, sessionCookies } = dependencies;
  return {
    // The contract keeps browsers to the frontend's own documents under TRUSTED_DOCUMENTS_ONLY,
    // whether the session is valid or not: the answer tells nothing about it.
    presented(request) {
      return sessionCookies.of(request, cookieSecure) === undefined ? undefined : { queryTexts: false };
    },

    identify(request, { activity = true } = {}) {
      const cookieId = sessionCookies.of(request, cookieSecure);
      if (cookieId === undefined) return undefined;
      return (async () => {
        let result: Awaited<ReturnType<Sessions['resolve']>>;
        try {
          result = await sessions.resolve(cookieId, { touch: activity });
        } catch (error) {
          health.failed(error);
          return { refusal: gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error }) };
        }
        // Only an answer of the store itself says it is reachable (not one from the session cache).
        if (result.status !== 'active' || !result.cached) health.ok();
        if (result.status === 'active') return { identity: new BrowserSessionIdentity(dependencies, request, result.session) };
        log.sessionRejected({ reason: result.status });
        // An id the store no longer holds is almost always a session past its idle or absolute
        // end (the store cannot tell a forged well-formed id apart): counted as expired.
        metrics.session(result.status === 'malformed' ? 'rejected' : 'expired');
        setCookies.queue(request, clearSessionCookie(cookieSecure));
        return ANONYMOUS;
      })();
    },
  };
}
