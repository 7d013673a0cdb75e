/**
 * The drop-in front's audit lines for the answers it gives itself, without running a GraphQL
 * operation: its sign-in and sign-out (the upstream's answer names the account; a refused sign-in
 * names the e-mail it tried, as a refused login does) and a mutation it passed to the upstream or
 * refused before the gateway ran it (named by what the front read of its document, with the uid
 * only when the upstream's answer authenticated it). Given to the front's audit log (useAuditLog's
 * `answered`).
 */
import { asEmail, httpOutcome, statementCount, type AuditEntry } from '../audit/use-audit-log';
import { environmentNamed, type Environment } from '../environment';
import type { DropInStates } from './state';

const FRONT_AUTH = /\/v2\/auth\/(sign_in|sign_out)$/;
const MAX_UID = 254;

/** The environment a front request acted in: its path's prefix, else X-Upstream-Environment. */
function frontEnvironmentOf(url: URL, request: Request): Environment {
  return url.pathname.startsWith('/production/') ? 'production' : environmentNamed(request.headers.get('x-upstream-environment'));
}

/** The front's audit lines, read from its state of each request. */
export function frontAuditEntries(dropIn: DropInStates): (request: Request, response: Response, url: URL) => AuditEntry | undefined {
  return (request, response, url) => frontAuditEntry(dropIn, request, response, url);
}

function frontAuditEntry(dropIn: DropInStates, request: Request, response: Response, url: URL): AuditEntry | undefined {
  const state = dropIn.of(request);
  const front = FRONT_AUTH.exec(url.pathname)?.[1];
  if (front) {
    const uid = response.headers.get('uid') ?? (front === 'sign_in' ? asEmail(state?.signInEmail) : undefined);
    return {
      action: front === 'sign_in' ? 'front.sign-in' : 'front.sign-out',
      outcome: response.ok ? 'ok' : httpOutcome(response.status, front === 'sign_in' ? 'INVALID_CREDENTIALS' : 'UNAUTHENTICATED'),
      actor: 'drop-in',
      ...(uid ? { uid: uid.slice(0, MAX_UID) } : {}),
      environment: frontEnvironmentOf(url, request),
    };
  }
  if (!state?.passedMutation) return undefined;
  const { fields, variables } = state.passedMutation;
  const uid = response.headers.get('uid');
  return {
    action: 'mutation',
    outcome: state.refusedWith ?? httpOutcome(response.status, 'UNAUTHENTICATED'),
    actor: 'drop-in',
    ...(uid ? { uid: uid.slice(0, MAX_UID) } : {}),
    environment: frontEnvironmentOf(url, request),
    fields: [...new Set(fields.map((field) => field.name.value))],
    statements: statementCount(fields, variables),
  };
}
