/**
 * The drop-in front's audit lines for the answers it gives itself, without running a GraphQL
 * operation: its sign-in and sign-out (the upstream's answer names the account; a refused sign-in
 * names the e-mail it tried, as a refused login does) and a mutation it passed to the upstream or
 * refused before the gateway ran it (named by what the front read of its document, with the uid
 * only when the upstream's answer authenticated it). Given to the front's audit log (useAuditLog's
 * `answered`).
 */
import { asEmail, httpOutcome, statementCount, type AuditEntry } from '../audit/use-audit-log';
import type { Environment } from '../environment';
import { frontRequestOf } from './front-paths';
import type { DropInStates } from './state';

const MAX_UID = 254;

/** The front's audit lines, read from its state of each request. */
export function frontAuditEntries(dropIn: DropInStates): (request: Request, response: Response) => AuditEntry | undefined {
  return (request, response) => frontAuditEntry(dropIn, request, response);
}

function frontAuditEntry(dropIn: DropInStates, request: Request, response: Response): AuditEntry | undefined {
  const front = frontRequestOf(request);
  if (!front) return undefined;
  const state = dropIn.of(request);
  const { endpoint } = front.route;
  // Where the request acted; one whose prefix the header contradicted (refused) is named by its path.
  const environment: Environment = front.environment === 'conflict' ? (front.route.prefix ?? 'sandbox') : front.environment;
  if (endpoint !== 'graphql') {
    const uid = response.headers.get('uid') ?? (endpoint === 'signIn' ? asEmail(state?.signInEmail) : undefined);
    return {
      action: endpoint === 'signIn' ? 'front.sign-in' : 'front.sign-out',
      outcome: response.ok ? 'ok' : httpOutcome(response.status, endpoint === 'signIn' ? 'INVALID_CREDENTIALS' : 'UNAUTHENTICATED'),
      actor: 'drop-in',
      ...(uid ? { uid: uid.slice(0, MAX_UID) } : {}),
      environment,
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
    environment,
    fields: [...new Set(fields.map((field) => field.name.value))],
    statements: statementCount(fields, variables),
  };
}
