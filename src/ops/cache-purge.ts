/**
 * `POST /ops/cache/purge {"scope", "environment"?, "uid"?, "otxId"?, "dryRun"?, "reason"}`: an
 * operator drops cached data so that the next read asks the upstream, after a change the gateway
 * did not see (made in the upstream's own application, or by another integration). What each scope
 * drops, and how it is found without a keyspace scan, is src/cache/purge.ts's. Answers
 * `{"dryRun", "purged": {"definitions", "statements", "pdfs"}}`: with `dryRun`, what would go.
 *
 * An operator action (ops/operator-action.ts: access, POST, the body's fields checked before
 * anything is dropped, an audit line for every answer). Its audit line `ops.cache.purge` adds the
 * reason, the scope, the user and the statement as keyed names (never in clear) and the counts.
 */
import type { DerivedKeys } from '../derived-keys';
import { ENVIRONMENTS, type Environment } from '../environment';
import { errorResponse } from '../errors';
import { jsonResponse } from '../errors/json-response';
import type { PurgeCounts, PurgeRequest } from '../cache/purge';
import type { AuditFields } from '../observability/log-events';
import { PURGE_SCOPES, type PurgeScope } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import type { OpsEndpoint } from './endpoint';
import { operatorActionEndpoint, type OperatorActionOptions, type Parsed } from './operator-action';

export const CACHE_PURGE_PATH = '/ops/cache/purge';
const MAX_REASON = 200;
/** An upstream uid is its sign-in e-mail (RFC 5321's longest address). */
const MAX_UID = 320;
const MAX_OTX_ID = 128;

export interface CachePurgeOptions extends OperatorActionOptions {
  /** Counts or drops what the request names (cache/purge.ts); throws when the store cannot be reached. */
  readonly purge: (request: PurgeRequest) => Promise<PurgeCounts>;
  /** Names the user and the statement in the audit line. */
  readonly names: Pick<DerivedKeys, 'name'>;
  readonly health?: Pick<StoreHealth, 'failed'>;
}

type Purge = PurgeRequest & { readonly reason: string };

const text = (value: unknown, max: number): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= max;

/** The request's fields, or what is wrong with them (every field named). */
function parse({ scope, environment, uid, otxId, dryRun, reason }: Readonly<Record<string, unknown>>): Parsed<Purge> {
  const problems: string[] = [];
  const known = typeof scope === 'string' && PURGE_SCOPES.includes(scope as PurgeScope);
  if (!known) problems.push('`scope` must be "definitions", "identity", "statement" or "all"');
  // One user's data: its environment is needed to find it.
  const identified = scope === 'identity' || scope === 'statement';
  if (environment === undefined ? identified : typeof environment !== 'string' || !ENVIRONMENTS.includes(environment as Environment)) problems.push(`\`environment\` must be "sandbox" or "production"${identified ? ` (required with the scope ${String(scope)})` : ''}`);
  if (identified ? !text(uid, MAX_UID) : uid !== undefined) problems.push(identified ? `\`uid\` must be the upstream uid (1 to ${MAX_UID} characters)` : '`uid` belongs to the scopes identity and statement only');
  if (scope === 'statement' ? !text(otxId, MAX_OTX_ID) : otxId !== undefined) problems.push(scope === 'statement' ? `\`otxId\` must be the statement's otxId (1 to ${MAX_OTX_ID} characters)` : '`otxId` belongs to the scope statement only');
  if (dryRun !== undefined && typeof dryRun !== 'boolean') problems.push('`dryRun` must be true or false');
  if (!text(reason, MAX_REASON)) problems.push(`\`reason\` must be 1 to ${MAX_REASON} characters`);
  if (problems.length) return { problems };
  return {
    scope: scope as PurgeScope, dryRun: dryRun === true, reason: reason as string,
    ...(environment === undefined ? {} : { environment: environment as Environment }),
    ...(identified ? { uid: uid as string } : {}),
    ...(scope === 'statement' ? { otxId: otxId as string } : {}),
  };
}

/** The purge on its path, as an operator endpoint of either listener (ops/operator-action.ts). */
export function cachePurgeEndpoint(options: CachePurgeOptions): OpsEndpoint {
  const { purge, names, health } = options;
  return operatorActionEndpoint<Purge>({
    action: 'ops.cache.purge',
    path: CACHE_PURGE_PATH,
    nothingDone: 'Nothing was purged',
    shape: '{"scope", "reason", ...}',
    parse,
    async run(parsed, audit) {
      const { reason, ...what } = parsed;
      const subject: Partial<AuditFields> = {
        reason, scope: what.scope, dryRun: what.dryRun,
        ...(what.environment ? { environment: what.environment } : {}),
        ...(what.environment && what.uid !== undefined ? { subject: names.name('cache-user', what.environment, what.uid) } : {}),
        ...(what.environment && what.otxId !== undefined ? { statement: names.name('cache-statement', what.environment, what.otxId) } : {}),
      };
      let purged: PurgeCounts;
      try {
        purged = await purge(what);
      } catch (error) {
        health?.failed(error);
        return audit(errorResponse(503, 'INTERNAL_SERVER_ERROR', 'The cache store cannot be reached: try again (what was dropped already stays dropped).', { headers: { 'retry-after': '5' } }), { ...subject, outcome: 'CACHE_STORE_UNAVAILABLE' });
      }
      return audit(jsonResponse(200, { dryRun: what.dryRun, purged }), { ...subject, counts: { ...purged } });
    },
  }, options);
}
