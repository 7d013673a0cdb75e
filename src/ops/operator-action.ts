/**
 * An operator action (`POST /ops/sessions/revoke`, `POST /ops/cache/purge`): what every one of them
 * owes before and around its own work, written once. Access is the other operator endpoints' rule
 * (ops/access.ts), except that a client it hides from gets the contract's 403 rather than a 404 (a
 * script pointed at the wrong listener should be told, and these paths are no secret); only POST;
 * a JSON object body of a few short fields, every field checked before anything acts; and an audit
 * line for every answer, refusals included (the request id comes with every line of a request):
 * the action, the client address, the status and outcome, and what the action adds (its reason,
 * its subject as keyed names, its counts). Never the token.
 */
import { errorResponse } from '../errors';
import type { AuditFields, LogEvents } from '../observability/log-events';
import { clientAddress } from '../protection/client-address';
import type { OpsVerdict } from './access';
import type { OpsEndpoint } from './endpoint';

/** A body is a few short fields: anything longer is not one. */
const MAX_BODY_CHARS = 4_096;

/** The fields an action acts on, or every problem with them (each names its field). */
export type Parsed<T> = T | { readonly problems: readonly string[] };

/** Writes the request's audit line with `fields` and hands the answer back. */
export type Audit = (response: Response, fields?: Partial<AuditFields>) => Response;

export interface OperatorAction<T> {
  /** The audit line's action (`ops.cache.purge`). */
  readonly action: string;
  readonly path: string;
  /** How a refused body starts its message ("Nothing was purged"). */
  readonly nothingDone: string;
  /** The body's fields, named for a body that is not a JSON object (`{"scope", "reason", ...}`). */
  readonly shape: string;
  parse(fields: Readonly<Record<string, unknown>>): Parsed<T>;
  /** The action on valid fields; its answer goes through `audit`. */
  run(fields: T, audit: Audit): Promise<Response>;
}

export interface OperatorActionOptions {
  /** Who may call it (createOpsAccess). */
  readonly access: (request: Request, serverContext: unknown) => OpsVerdict;
  readonly log: Pick<LogEvents, 'audit'>;
  /** TRUST_PROXY, for the client address of the audit line. */
  readonly trustProxy: number;
}

/** The body as an object of fields, or undefined when it is not one (or too long to be one). */
function fieldsOf(body: string): Readonly<Record<string, unknown>> | undefined {
  let parsed: unknown;
  try {
    parsed = body.length > MAX_BODY_CHARS ? undefined : JSON.parse(body);
  } catch {
    return undefined;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

/** The action on its path, as an operator endpoint of either listener. */
export function operatorActionEndpoint<T>(action: OperatorAction<T>, { access, log, trustProxy }: OperatorActionOptions): OpsEndpoint {
  const handle = async (request: Request, serverContext: unknown): Promise<Response> => {
    const audit: Audit = (response, fields = {}) => {
      log.audit({
        action: action.action, actor: 'operator', status: response.status, path: action.path,
        clientAddress: clientAddress(request, serverContext, trustProxy),
        outcome: response.status === 200 ? 'ok' : `HTTP_${response.status}`,
        ...fields,
      });
      return response;
    };
    const verdict = access(request, serverContext);
    if (verdict === 'unauthorized') {
      return audit(errorResponse(401, 'UNAUTHENTICATED', `${action.path} needs the OPS_TOKEN.`, { headers: { 'www-authenticate': 'Bearer realm="statement-gateway ops"' } }), { outcome: 'UNAUTHENTICATED' });
    }
    if (verdict === 'hidden') return audit(errorResponse(403, 'UNAUTHENTICATED', 'Without OPS_TOKEN, operator endpoints answer loopback clients only.'), { outcome: 'UNAUTHENTICATED' });
    if (request.method !== 'POST') return audit(errorResponse(405, 'BAD_REQUEST', 'Only POST is allowed here.', { headers: { allow: 'POST' } }), { outcome: 'BAD_REQUEST' });
    const fields = fieldsOf(await request.text());
    const parsed = fields ? action.parse(fields) : { problems: [`the body must be a JSON object ${action.shape} of at most ${MAX_BODY_CHARS} characters`] };
    if (typeof parsed === 'object' && parsed !== null && 'problems' in parsed) {
      return audit(errorResponse(400, 'BAD_REQUEST', `${action.nothingDone}: ${parsed.problems.join('; ')}.`), { outcome: 'BAD_REQUEST' });
    }
    return action.run(parsed, audit);
  };
  return (request, serverContext, url = new URL(request.url)) => (url.pathname === action.path ? handle(request, serverContext) : undefined);
}
