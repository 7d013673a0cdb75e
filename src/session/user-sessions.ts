/**
 * The levers on a user's browser sessions: the user's own (`sessions`, `endSession`,
 * `logoutEverywhere`), the operators' (`POST /ops/sessions/revoke`) and the cap
 * (SESSION_MAX_PER_USER, at login). Each session ended here is taken from the store with its index
 * entry in one step (only one caller can take it), dropped by every replica's session cache (the
 * invalidation sessions.ts publishes: within a millisecond or so, and within SESSION_CACHE_TTL
 * if the message is lost), signed out upstream with its own credential (its own devise client),
 * and counted once: `revoked`, or `evicted` for the cap.
 *
 * Ids in the list are MACs of the session keys (Sessions.handleOf): not the cookie, not derivable
 * from it without CREDENTIAL_KEY, and looked up in the caller's own list only, so another user's
 * id ends nothing.
 */
import type { UpstreamAuth } from '../credentials/upstream-auth';
import type { Environment } from '../environment';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import type { UpstreamTarget } from '../upstream/target';
import type { ActiveSession, ListedSession, Sessions, TakenSession } from './sessions';

export interface UserSessionsOptions {
  readonly sessions: Sessions;
  /** Signs each ended session out upstream. */
  readonly auth: Pick<UpstreamAuth, 'signOut'>;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  readonly metrics: Pick<GatewayMetrics, 'session'>;
  readonly log: Pick<LogEvents, 'sessionEnded'>;
  /** Where the cap's failures are reported (a login does not fail for them). */
  readonly health: Pick<StoreHealth, 'failed'>;
  readonly clock?: () => number;
}

/** One line of `sessions`. */
export interface SessionInfo {
  readonly id: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly userAgent?: string;
  readonly current: boolean;
}

type EndEvent = 'revoked' | 'evicted';

export class UserSessions {
  private readonly clock: () => number;

  constructor(private readonly options: UserSessionsOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /**
   * The current user's live sessions, most recently used first (the current one: this request
   * uses it). A current session made before indexes is not in the index, but is listed all the same.
   */
  async list(current: ActiveSession): Promise<SessionInfo[]> {
    return (await this.listed(current)).map((listed) => this.info(listed, current));
  }

  /** Ends the session `id` names if it is one of the current user's; whether it did, and whether it was the current one. */
  async endOne(current: ActiveSession, id: string): Promise<{ readonly ended: boolean; readonly current: boolean }> {
    const { sessions } = this.options;
    const found = (await this.listed(current)).find((listed) => sessions.isHandleOf(id, listed.key));
    if (!found) return { ended: false, current: false };
    return { ended: await this.end(found.key, 'revoked'), current: found.key === current.key };
  }

  /** Ends every session of the current user (but the current one with `keepCurrent`); how many it ended. */
  async endAll(current: ActiveSession, keepCurrent: boolean): Promise<{ readonly ended: number; readonly current: boolean }> {
    const targets = (await this.listed(current)).filter((listed) => !keepCurrent || listed.key !== current.key);
    const ended = await this.endEach(targets.map((listed) => listed.key), 'revoked');
    return { ended, current: !keepCurrent };
  }

  /** The operators' revoke: ends every indexed session of an upstream user; how many it ended. */
  async revoke(environment: Environment, uid: string): Promise<number> {
    const listed = await this.options.sessions.listed(environment, uid);
    return this.endEach(listed.map((session) => session.key), 'revoked');
  }

  /**
   * The cap, after a login: ends the sessions beyond it (Sessions.create's `beyondCap`). The
   * store's part is awaited (the cap holds once the login answers), the upstream sign-outs are
   * not (the login does not wait for them). Never throws: a failure leaves the user over the cap
   * until their next login, and is reported to the store's health.
   */
  async evict(keys: readonly string[]): Promise<void> {
    await Promise.all(
      keys.map(async (key) => {
        const taken = await this.options.sessions.take(key).catch((error: unknown) => {
          this.options.health.failed(error);
          return undefined;
        });
        if (taken) void this.signOut(taken, 'evicted');
      }),
    );
  }

  private listed(current: ActiveSession): Promise<ListedSession[]> {
    return this.options.sessions.listed(current.environment, current.uid).then((listed) => {
      const now = this.clock();
      const others = listed.filter((session) => session.key !== current.key);
      const own = listed.find((session) => session.key === current.key);
      // This request is a use of the current session, whatever the store last recorded.
      return [{ key: current.key, createdAt: current.createdAt, lastSeenAt: now, ...(own?.userAgent ? { userAgent: own.userAgent } : {}) }, ...others];
    });
  }

  private info(listed: ListedSession, current: ActiveSession): SessionInfo {
    return {
      id: this.options.sessions.handleOf(listed.key),
      createdAt: listed.createdAt,
      lastSeenAt: listed.lastSeenAt,
      ...(listed.userAgent ? { userAgent: listed.userAgent } : {}),
      current: listed.key === current.key,
    };
  }

  private async endEach(keys: readonly string[], event: EndEvent): Promise<number> {
    const ended = await Promise.all(keys.map((key) => this.end(key, event)));
    return ended.filter(Boolean).length;
  }

  /** Takes a session from the store and signs it out upstream; false when someone else took it first. */
  private async end(key: string, event: EndEvent): Promise<boolean> {
    const taken = await this.options.sessions.take(key);
    if (!taken) return false;
    await this.signOut(taken, event);
    return true;
  }

  private async signOut(taken: TakenSession, event: EndEvent): Promise<void> {
    const { auth, upstreams, log, metrics } = this.options;
    // Best effort, as at logout: the session is gone here whatever the upstream answers.
    const upstreamSignOut = await auth.signOut(upstreams[taken.environment], taken.credential).catch(() => 'failed' as const);
    log.sessionEnded({ environment: taken.environment, as: event, upstreamSignOut });
    metrics.session(event);
  }
}
