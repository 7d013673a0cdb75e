/**
 * `POST /ops/sessions/revoke {"environment", "uid", "reason"}`: an operator ends every browser
 * session of one upstream user (an account taken over, an employee gone), each signed out
 * upstream and refused on every replica within SESSION_CACHE_TTL + 1 s (session/user-sessions.ts).
 * Answers `{"ended": n}`.
 *
 * A plain handler (ops/endpoint.ts): the traffic port's pipeline and the ops listener serve the
 * same function. Access is the other operator endpoints' rule (ops/access.ts: OPS_TOKEN, or
 * loopback without one), except that a client it hides from gets the contract's 403 rather than a
 * 404: a script pointed at the wrong listener should be told, and this path is no secret.
 * Nothing is ended unless every field is valid. Every answer writes the audit line
 * `ops.sessions.revoke` (with the request id, as every line of a request): the client address,
 * the reason, the user as a keyed name (the one their session keys carry, so an operator can
 * find them in Redis; never the uid in clear) and the count; never the token.
 */
import { errorResponse } from '../errors';
import { jsonResponse } from '../errors/json-response';
import type { DerivedKeys } from '../derived-keys';
import { ENVIRONMENTS, type Environment } from '../environment';
import type { AuditFields, LogEvents } from '../observability/log-events';
import type { StoreHealth } from '../observability/store-health';
import { clientAddress } from '../protection/client-address';
import { userName } from '../session/session-index';
import type { OpsVerdict } from './access';
import type { OpsEndpoint } from './endpoint';

export const SESSION_REVOKE_PATH = '/ops/sessions/revoke';
/** A body is three short fields: anything longer is not one. */
const MAX_BODY_CHARS = 4_096;
const MAX_REASON = 200;
/** An upstream uid is its sign-in e-mail (RFC 5321's longest address). */
const MAX_UID = 320;

export interface SessionRevokeOptions {
  /** Ends every session of a user, how many (UserSessions.revoke); throws when the store is down. */
  readonly revoke: (environment: Environment, uid: string) => Promise<number>;
  /** Who may call it (createOpsAccess). */
  readonly access: (request: Request, serverContext: unknown) => OpsVerdict;
  /** Names the user in the audit line (the session keys' `session-user` name). */
  readonly names: Pick<DerivedKeys, 'name'>;
  readonly log: Pick<LogEvents, 'audit'>;
  readonly health?: Pick<StoreHealth, 'failed'>;
  /** TRUST_PROXY, for the client address of the audit line. */
  readonly trustProxy: number;
}

type Revocation = { readonly environment: Environment; readonly uid: string; readonly reason: string };

/** The request's fields, or what is wrong with them (every field named). */
function parse(text: string): Revocation | { readonly problems: readonly string[] } {
  let body: unknown;
  try {
    body = text.length > MAX_BODY_CHARS ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { problems: [`the body must be a JSON object {"environment", "uid", "reason"} of at most ${MAX_BODY_CHARS} characters`] };
  const { environment, uid, reason } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof environment !== 'string' || !ENVIRONMENTS.includes(environment as Environment)) problems.push('`environment` must be "sandbox" or "production"');
  if (typeof uid !== 'string' || uid.trim() === '' || uid.length > MAX_UID) problems.push(`\`uid\` must be the upstream uid (1 to ${MAX_UID} characters)`);
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > MAX_REASON) problems.push(`\`reason\` must be 1 to ${MAX_REASON} characters`);
  return problems.length ? { problems } : { environment: environment as Environment, uid: uid as string, reason: reason as string };
}

/** The handler itself: any request to the path (the method is checked here). */
export function sessionRevokeHandler(options: SessionRevokeOptions): (request: Request, serverContext?: unknown) => Promise<Response> {
  const { revoke, access, names, log, health, trustProxy } = options;
  return async (request, serverContext) => {
    const audit = (response: Response, fields: Partial<AuditFields> = {}): Response => {
      log.audit({
        action: 'ops.sessions.revoke', actor: 'operator', status: response.status, path: SESSION_REVOKE_PATH,
        clientAddress: clientAddress(request, serverContext, trustProxy),
        outcome: response.status === 200 ? 'ok' : `HTTP_${response.status}`,
        ...fields,
      });
      return response;
    };
    const verdict = access(request, serverContext);
    if (verdict === 'unauthorized') {
      return audit(errorResponse(401, 'UNAUTHENTICATED', `${SESSION_REVOKE_PATH} needs the OPS_TOKEN.`, { headers: { 'www-authenticate': 'Bearer realm="statement-gateway ops"' } }), { outcome: 'UNAUTHENTICATED' });
    }
    if (verdict === 'hidden') {
      return audit(errorResponse(403, 'UNAUTHENTICATED', 'Without OPS_TOKEN, operator endpoints answer loopback clients only.'), { outcome: 'UNAUTHENTICATED' });
    }
    if (request.method !== 'POST') return audit(errorResponse(405, 'BAD_REQUEST', 'Only POST is allowed here.', { headers: { allow: 'POST' } }), { outcome: 'BAD_REQUEST' });
    const parsed = parse(await request.text());
    if ('problems' in parsed) return audit(errorResponse(400, 'BAD_REQUEST', `Nothing was ended: ${parsed.problems.join('; ')}.`), { outcome: 'BAD_REQUEST' });
    const { environment, uid, reason } = parsed;
    const subject = { environment, reason, subject: userName(names, environment, uid) };
    let ended: number;
    try {
      ended = await revoke(environment, uid);
    } catch (error) {
      health?.failed(error);
      return audit(errorResponse(503, 'SESSION_STORE_UNAVAILABLE', 'The session store cannot be reached: try again (the sessions already ended stay ended).'), { ...subject, outcome: 'SESSION_STORE_UNAVAILABLE' });
    }
    return audit(jsonResponse(200, { ended }), { ...subject, counts: { ended } });
  };
}

/** The handler on its path, as an operator endpoint of either listener. */
export function sessionRevokeEndpoint(options: SessionRevokeOptions): OpsEndpoint {
  const handler = sessionRevokeHandler(options);
  return (request, serverContext, url = new URL(request.url)) => (url.pathname === SESSION_REVOKE_PATH ? handler(request, serverContext) : undefined);
}
