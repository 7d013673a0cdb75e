/**
 * `GET /ops/upstream-schema`: the last upstream schema check per environment
 * (upstream-schema-watch.ts): `{"<environment>": {"checkedAt", "status", "changes",
 * "invalidDocuments", "lastSuccessAt", "reason"?, "durationMs"?}}`. It reads what the background
 * check last found and asks the upstream nothing, however often it is called.
 *
 * A plain handler (ops/endpoint.ts), with the other operator endpoints' access (ops/access.ts:
 * OPS_TOKEN, or loopback without one) and, as the revoke does, the contract's 403 rather than a 404
 * for a client it hides from. Every answer writes the audit line `ops.upstream-schema` (never the
 * token), with the counts it answered.
 */
import { errorResponse } from '../errors';
import { jsonResponse } from '../errors/json-response';
import type { AuditFields, LogEvents } from '../observability/log-events';
import { clientAddress } from '../protection/client-address';
import type { OpsVerdict } from './access';
import type { OpsEndpoint } from './endpoint';
import type { UpstreamSchemaStatuses } from './upstream-schema-watch';

export const UPSTREAM_SCHEMA_PATH = '/ops/upstream-schema';

export interface UpstreamSchemaEndpointOptions {
  readonly statuses: () => UpstreamSchemaStatuses;
  readonly access: (request: Request, serverContext: unknown) => OpsVerdict;
  readonly log: Pick<LogEvents, 'audit'>;
  /** TRUST_PROXY, for the client address of the audit line. */
  readonly trustProxy: number;
}

export function upstreamSchemaEndpoint({ statuses, access, log, trustProxy }: UpstreamSchemaEndpointOptions): OpsEndpoint {
  const answer = (request: Request, serverContext: unknown): Response => {
    const audit = (response: Response, fields: Partial<AuditFields> = {}): Response => {
      log.audit({
        action: 'ops.upstream-schema', actor: 'operator', status: response.status, path: UPSTREAM_SCHEMA_PATH,
        clientAddress: clientAddress(request, serverContext, trustProxy), outcome: response.status === 200 ? 'ok' : `HTTP_${response.status}`, ...fields,
      });
      return response;
    };
    const verdict = access(request, serverContext);
    if (verdict === 'unauthorized') {
      return audit(errorResponse(401, 'UNAUTHENTICATED', `${UPSTREAM_SCHEMA_PATH} needs the OPS_TOKEN.`, { headers: { 'www-authenticate': 'Bearer realm="statement-gateway ops"' } }), { outcome: 'UNAUTHENTICATED' });
    }
    if (verdict === 'hidden') return audit(errorResponse(403, 'UNAUTHENTICATED', 'Without OPS_TOKEN, operator endpoints answer loopback clients only.'), { outcome: 'UNAUTHENTICATED' });
    if (request.method !== 'GET' && request.method !== 'HEAD') return audit(errorResponse(405, 'BAD_REQUEST', 'Only GET is allowed here.', { headers: { allow: 'GET, HEAD' } }), { outcome: 'BAD_REQUEST' });
    const found = statuses();
    const counts = Object.fromEntries(Object.entries(found).flatMap(([environment, check]) => [
      [`${environment}.changes`, check.changes.length],
      [`${environment}.invalidDocuments`, check.invalidDocuments.length],
    ]));
    return audit(jsonResponse(200, found), { counts });
  };
  return (request, serverContext, url = new URL(request.url)) => (url.pathname === UPSTREAM_SCHEMA_PATH ? answer(request, serverContext) : undefined);
}
