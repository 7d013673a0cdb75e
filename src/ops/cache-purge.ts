/**
 * `POST /ops/cache/purge {"scope", "environment"?, "uid"?, "otxId"?, "dryRun"?, "reason"}`: an
 * operator drops cached data so that the next read asks the upstream, after a change the gateway
 * did not see (made in the upstream's own application, or by another integration). What each scope
 * drops, and how it is found without a keyspace scan, is src/cache/purge.ts's. Answers
 * `{"dryRun", "purged": {"definitions", "statements", "pdfs"}}`: with `dryRun`, what would go.
 *
 * A plain handler (ops/endpoint.ts), with the other operator endpoints' access rule (ops/access.ts)
 * and, as the session revoke, the contract's 403 to a client it hides from. Nothing is dropped
 * unless every field is valid. Every answer writes the audit line `ops.cache.purge` (the request id
 * comes with every line of a request): the client address, the reason, the scope, the user and
 * the statement as keyed names (never in clear), the counts; never the token.
 */
import type { DerivedKeys } from '../derived-keys';
import { ENVIRONMENTS, type Environment } from '../environment';
import { errorResponse } from '../errors';
import { jsonResponse } from '../errors/json-response';
import type { PurgeCounts, PurgeRequest } from '../cache/purge';
import type { AuditFields, LogEvents } from '../observability/log-events';
import { PURGE_SCOPES, type PurgeScope } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import { clientAddress } from '../protection/client-address';
import type { OpsVerdict } from './access';
import type { OpsEndpoint } from './endpoint';

export const CACHE_PURGE_PATH = '/ops/cache/purge';
/** A body is a few short fields: anything longer is not one. */
const MAX_BODY_CHARS = 4_096;
const MAX_REASON = 200;
/** An upstream uid is its sign-in e-mail (RFC 5321's longest address). */
const MAX_UID = 320;
const MAX_OTX_ID = 128;

export interface CachePurgeOptions {
  /** Counts or drops what the request names (cache/purge.ts); throws when the store cannot be reached. */
  readonly purge: (request: PurgeRequest) => Promise<PurgeCounts>;
  readonly access: (request: Request, serverContext: unknown) => OpsVerdict;
  /** Names the user and the statement in the audit line. */
  readonly names: Pick<DerivedKeys, 'name'>;
  readonly log: Pick<LogEvents, 'audit'>;
  readonly health?: Pick<StoreHealth, 'failed'>;
  /** TRUST_PROXY, for the client address of the audit line. */
  readonly trustProxy: number;
}

type Purge = PurgeRequest & { readonly reason: string };

const text = (value: unknown, max: number): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= max;

/** The request's fields, or what is wrong with them (every field named). */
function parse(body: string): Purge | { readonly problems: readonly string[] } {
  let fields: unknown;
  try {
    fields = body.length > MAX_BODY_CHARS ? undefined : JSON.parse(body);
  } catch {
    fields = undefined;
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return { problems: [`the body must be a JSON object {"scope", "reason", ...} of at most ${MAX_BODY_CHARS} characters`] };
  const { scope, environment, uid, otxId, dryRun, reason } = fields as Record<string, unknown>;
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

/** The handler itself: any request to the path (the method is checked here). */
export function cachePurgeHandler(options: CachePurgeOptions): (request: Request, serverContext?: unknown) => Promise<Response> {
  const { purge, access, names, log, health, trustProxy } = options;
  return async (request, serverContext) => {
    const audit = (response: Response, fields: Partial<AuditFields> = {}): Response => {
      log.audit({
        action: 'ops.cache.purge', actor: 'operator', status: response.status, path: CACHE_PURGE_PATH,
        clientAddress: clientAddress(request, serverContext, trustProxy),
        outcome: response.status === 200 ? 'ok' : `HTTP_${response.status}`,
        ...fields,
      });
      return response;
    };
    const verdict = access(request, serverContext);
    if (verdict === 'unauthorized') {
      return audit(errorResponse(401, 'UNAUTHENTICATED', `${CACHE_PURGE_PATH} needs the OPS_TOKEN.`, { headers: { 'www-authenticate': 'Bearer realm="statement-gateway ops"' } }), { outcome: 'UNAUTHENTICATED' });
    }
    if (verdict === 'hidden') return audit(errorResponse(403, 'UNAUTHENTICATED', 'Without OPS_TOKEN, operator endpoints answer loopback clients only.'), { outcome: 'UNAUTHENTICATED' });
    if (request.method !== 'POST') return audit(errorResponse(405, 'BAD_REQUEST', 'Only POST is allowed here.', { headers: { allow: 'POST' } }), { outcome: 'BAD_REQUEST' });
    const parsed = parse(await request.text());
    if ('problems' in parsed) return audit(errorResponse(400, 'BAD_REQUEST', `Nothing was purged: ${parsed.problems.join('; ')}.`), { outcome: 'BAD_REQUEST' });
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
  };
}

/** The handler on its path, as an operator endpoint of either listener. */
export function cachePurgeEndpoint(options: CachePurgeOptions): OpsEndpoint {
  const handler = cachePurgeHandler(options);
  return (request, serverContext, url = new URL(request.url)) => (url.pathname === CACHE_PURGE_PATH ? handler(request, serverContext) : undefined);
}
