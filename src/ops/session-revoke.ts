/**
 * `POST /ops/sessions/revoke {"environment", "uid", "reason"}`: an operator ends every browser
 * session of one upstream user (an account taken over, an employee gone), each signed out
 * upstream and refused on every replica within SESSION_CACHE_TTL + 1 s (session/user-sessions.ts).
 * Answers `{"ended": n}`.
 *
 * An operator action (ops/operator-action.ts: access, POST, the body's fields checked before
 * anything is ended, an audit line for every answer). Its audit line `ops.sessions.revoke` adds the
 * reason, the user as a keyed name (the one their session keys carry, so an operator can find them
 * in Redis; never the uid in clear) and the count.
 */
import { errorResponse } from '../errors';
import { jsonResponse } from '../errors/json-response';
import type { DerivedKeys } from '../derived-keys';
import { ENVIRONMENTS, type Environment } from '../environment';
import type { StoreHealth } from '../observability/store-health';
import { userName } from '../session/session-index';
import type { OpsEndpoint } from './endpoint';
import { operatorActionEndpoint, type OperatorActionOptions, type Parsed } from './operator-action';

export const SESSION_REVOKE_PATH = '/ops/sessions/revoke';
const MAX_REASON = 200;
/** An upstream uid is its sign-in e-mail (RFC 5321's longest address). */
const MAX_UID = 320;

export interface SessionRevokeOptions extends OperatorActionOptions {
  /** Ends every session of a user, how many (UserSessions.revoke); throws when the store is down. */
  readonly revoke: (environment: Environment, uid: string) => Promise<number>;
  /** Names the user in the audit line (the session keys' `session-user` name). */
  readonly names: Pick<DerivedKeys, 'name'>;
  readonly health?: Pick<StoreHealth, 'failed'>;
}

type Revocation = { readonly environment: Environment; readonly uid: string; readonly reason: string };

/** The request's fields, or what is wrong with them (every field named). */
function parse({ environment, uid, reason }: Readonly<Record<string, unknown>>): Parsed<Revocation> {
  const problems: string[] = [];
  if (typeof environment !== 'string' || !ENVIRONMENTS.includes(environment as Environment)) problems.push('`environment` must be "sandbox" or "production"');
  if (typeof uid !== 'string' || uid.trim() === '' || uid.length > MAX_UID) problems.push(`\`uid\` must be the upstream uid (1 to ${MAX_UID} characters)`);
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > MAX_REASON) problems.push(`\`reason\` must be 1 to ${MAX_REASON} characters`);
  return problems.length ? { problems } : { environment: environment as Environment, uid: uid as string, reason: reason as string };
}

/** The revoke on its path, as an operator endpoint of either listener (ops/operator-action.ts). */
export function sessionRevokeEndpoint(options: SessionRevokeOptions): OpsEndpoint {
  const { revoke, names, health } = options;
  return operatorActionEndpoint<Revocation>({
    action: 'ops.sessions.revoke',
    path: SESSION_REVOKE_PATH,
    nothingDone: 'Nothing was ended',
    shape: '{"environment", "uid", "reason"}',
    parse,
    async run({ environment, uid, reason }, audit) {
      const subject = { environment, reason, subject: userName(names, environment, uid) };
      let ended: number;
      try {
        ended = await revoke(environment, uid);
      } catch (error) {
        health?.failed(error);
        return audit(errorResponse(503, 'SESSION_STORE_UNAVAILABLE', 'The session store cannot be reached: try again (the sessions already ended stay ended).'), { ...subject, outcome: 'SESSION_STORE_UNAVAILABLE' });
      }
      return audit(jsonResponse(200, { ended }), { ...subject, counts: { ended } });
    },
  }, options);
}
