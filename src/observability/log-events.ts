/**
 * The gateway's named log events. Call sites say what happened (`log.sessionRejected(...)`);
 * the fields they may log are fixed here, and the logger redacts secrets besides.
 */
import type { Logger } from 'pino';
import type { Environment } from '../environment';

export type SessionRejection = 'missing' | 'expired' | 'malformed' | 'upstream-refused';

/** One line of the audit trail (use-audit-log.ts): who did what, from where, and how it ended. */
export interface AuditFields {
  /** login, logout, mutation, refused (any other refused request), front.sign-in, front.sign-out, ops.<action>. */
  readonly action: string;
  /** `ok`, the contract's error code (RATE_LIMITED, INVALID_CREDENTIALS, ...), or `idempotent.replayed` (a kept answer sent again; nothing ran). */
  readonly outcome: string;
  readonly status: number;
  readonly path: string;
  /** Who: session, service-account, drop-in or anonymous. */
  readonly actor: string;
  readonly uid?: string;
  /** A service account's name. */
  readonly account?: string;
  readonly environment?: Environment;
  /** The first 12 hex digits of the SHA-256 of the session's store key: ties lines together, opens nothing. */
  readonly session?: string;
  readonly clientAddress: string;
  /** The operation's root fields. */
  readonly fields?: readonly string[];
  /** Statements the operation names: list lengths of `statements`, `otxIds`, `uploaderIds`. */
  readonly statements?: number;
  /** A mutation sent with an Idempotency-Key: 12 hex digits of a hash of its keyed record name (never the key). */
  readonly idempotencyKey?: string;
  /** An operator endpoint's `reason`, as given. */
  readonly reason?: string;
  /** What an operator endpoint acted on, as a keyed hash (never a uid in clear). */
  readonly subject?: string;
  /** What an operator endpoint did, counted. */
  readonly counts?: Readonly<Record<string, number>>;
  /** A cache purge's scope (definitions, identity, statement, all), and whether it was a dry run. */
  readonly scope?: string;
  readonly dryRun?: boolean;
  /** The statement an operator endpoint acted on, as a keyed hash. */
  readonly statement?: string;
}

function describe(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: typeof error, message: String(error) };
}

export function createLogEvents(logger: Logger) {
  return {
    logger,
    gatewayStarted(fields: { url: string; opsUrl?: string; sessionStore: string; cacheStore: string; sessionTopology: string; cacheTopology: string; serviceAccounts: number; upstreams: Record<Environment, string>; embedded: boolean }) {
      logger.info({ event: 'gateway.started', ...fields }, 'gateway started');
    },
    configWarning(fields: { variable: string; message: string }) {
      logger.warn({ event: 'config.warning', ...fields }, 'configuration warning');
    },
    gatewayStopping(signal: string) {
      logger.info({ event: 'gateway.stopping', signal }, 'gateway stopping');
    },
    loginSucceeded(fields: { environment: Environment; uid: string }) {
      logger.info({ event: 'session.login', ...fields }, 'login');
    },
    loginRefused(fields: { environment: Environment; reason: 'invalid-credentials' | 'input-too-long' }) {
      logger.info({ event: 'session.login-refused', ...fields }, 'login refused');
    },
    sessionInvalidationUnpublished() {
      logger.warn({ event: 'session.invalidation-unpublished' }, 'a session change could not be published to the other replicas; their copies end within SESSION_CACHE_TTL');
    },
    logout(fields: { environment: Environment; upstreamSignOut: 'ok' | 'failed' }) {
      logger.info({ event: 'session.logout', ...fields }, 'logout');
    },
    /** A session ended by key: by its user (`endSession`, `logoutEverywhere`), an operator, or the cap. */
    sessionEnded(fields: { environment: Environment; as: 'revoked' | 'evicted'; upstreamSignOut: 'ok' | 'failed' }) {
      logger.info({ event: 'session.ended', ...fields }, 'session ended');
    },
    sessionRejected(fields: { reason: SessionRejection }) {
      logger.info({ event: 'session.rejected', ...fields }, 'session rejected');
    },
    credentialRotated(fields: { environment: Environment; kept: boolean }) {
      logger.debug({ event: 'credential.rotated', ...fields }, 'upstream rotated the access token');
    },
    accountSignedIn(fields: { account: string; environment: Environment; reason: 'missing' | 'expired' | 'refused' }) {
      logger.info({ event: 'service-account.signed-in', ...fields }, 'service account signed in upstream');
    },
    accountSignInFailed(fields: { account: string; environment: Environment; code: string; failures: number; retryInMs: number }) {
      logger.warn({ event: 'service-account.sign-in-failed', ...fields }, 'service account sign-in failed; backing off');
    },
    apiKeyRejected() {
      logger.info({ event: 'service-account.key-rejected' }, 'unknown API key');
    },
    rateLimited(fields: { limit: string }) {
      logger.info({ event: 'request.rate-limited', ...fields }, 'over a rate limit');
    },
    csrfRefused(fields: { reason: string; origin?: string }) {
      logger.info({ event: 'request.csrf-refused', ...fields }, 'CSRF check failed');
    },
    upstreamFailed(fields: { environment: Environment; operation: string; reason: 'refused' | 'timeout' | 'status' | 'malformed' | 'too-large'; status?: number }) {
      logger.warn({ event: 'upstream.failed', ...fields }, 'upstream call failed');
    },
    /** A call given up because every request waiting for it went away: not the upstream's failure. */
    upstreamAbandoned(fields: { environment: Environment; operation: string }) {
      logger.info({ event: 'upstream.abandoned', ...fields }, 'upstream call abandoned: the client went away');
    },
    /**
     * The upstream schema check found other changes than its last successful result (or than none):
     * a warning when anything is breaking or a trusted document would be refused. Paths and
     * documents (name and id prefix) listed, at most 20 each.
     */
    upstreamSchemaChanged(fields: { environment: Environment; breaking: number; dangerous: number; safe: number; invalidDocuments: number; paths: readonly string[]; documents: readonly string[] }) {
      const level = fields.breaking > 0 || fields.invalidDocuments > 0 ? 'warn' : 'info';
      logger[level]({ event: 'upstream.schema_changed', ...fields }, 'the live upstream schema differs from the last check');
    },
    /** An upstream schema check could not finish (sign-in, no answer, no schema in it): the last result stands. */
    upstreamSchemaCheckFailed(fields: { environment: Environment; account: string; reason: string; durationMs: number }) {
      logger.warn({ event: 'upstream.schema_check_failed', ...fields }, 'upstream schema check failed');
    },
    storeUnavailable(fields: { store: string; error: unknown }) {
      logger.error({ event: 'store.unavailable', store: fields.store, error: describe(fields.error) }, 'store unavailable');
    },
    storeRecovered(fields: { store: string }) {
      logger.info({ event: 'store.recovered', ...fields }, 'store reachable again');
    },
    cacheRefreshFailed(fields: { cache: string; environment: Environment; error: unknown }) {
      logger.warn({ event: 'cache.refresh-failed', cache: fields.cache, environment: fields.environment, error: describe(fields.error) }, 'cache refresh failed');
    },
    /** A shared cache entry failed its MAC (planted, edited, or of another key): a miss, never served. */
    cacheEntryRejected(fields: { cache: string; namespace: string }) {
      logger.warn({ event: 'cache.entry-rejected', ...fields }, 'cache entry failed verification');
    },
    /** An idempotent request's claim lapsed without its answer being kept: kept as UPSTREAM_UNAVAILABLE. */
    idempotencyOutcomeUnknown(fields: { keyHash: string; reason: 'holder-gone' | 'answer-lost' }) {
      logger.warn({ event: 'idempotency.outcome-unknown', ...fields }, 'an idempotent request\'s outcome is unknown; its key now replays UPSTREAM_UNAVAILABLE');
    },
    unexpectedError(fields: { error: unknown; operation?: string }) {
      const { error, ...rest } = fields;
      logger.error({ event: 'request.unexpected-error', ...rest, error: describe(error) }, 'unexpected error');
    },
    audit(fields: AuditFields) {
      logger.info({ event: 'audit', ...fields }, 'audit');
    },
    requestCompleted(fields: { method: string; path: string; status: number; durationMs: number; operation?: string; uid?: string }) {
      logger.info({ event: 'request.completed', ...fields }, 'request completed');
    },
  };
}

export type LogEvents = ReturnType<typeof createLogEvents>;
