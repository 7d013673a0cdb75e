/**
 * What every answer carries, set on the Node response before anything else runs (so the body-limit
 * refusals, the routes' 404s, /metrics, /ops and the drop-in front's answers all get them):
 * - `X-Content-Type-Options: nosniff`: a browser never runs a JSON or text answer as a script or
 *   page because it looks like one.
 * - `Cache-Control: no-store` when the request names an identity (a cookie, an Authorization
 *   header, the drop-in front's credential headers): no shared cache or browser history keeps one
 *   person's answer for another (an answer's own Cache-Control would take precedence: the
 *   gateway's handlers only ever set no-store).
 * - `Strict-Transport-Security` with COOKIE_SECURE: browsers come back over TLS only, so the
 *   session cookie never travels over plain HTTP to a network attacker.
 * - `Vary: Origin`: the CORS headers (and the CSRF verdict) depend on the Origin, so a cache must
 *   never hand one origin's answer to another.
 * - `X-Request-Id`: the client's own id only when the request came through a trusted proxy
 *   (TRUST_PROXY > 0) and the id is short and plain (it ends up in every log line of the request),
 *   else a random UUID; the same id is on every log line written for the request.
 *
 * Then, before anything routes the request, its Host and target are checked
 * (src/request/request-target.ts): one a reader could take for another path is answered 400 here,
 * on every endpoint, so that nothing after the edge reads a path two ways.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorAnswer } from '../errors';
import type { RequestContexts } from '../observability/request-context';
import { readRequest } from '../request/request-target';

export interface EdgeOptions {
  readonly trustProxy: number;
  readonly cookieSecure: boolean;
  /** The gateway's storage of the request each piece of work belongs to (its id for the logs). */
  readonly requests: RequestContexts;
}

/** Letters, digits and `._:-`, 1 to 128 of them: UUIDs, trace ids, nginx's $request_id. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const HSTS = 'max-age=31536000; includeSubDomains';

export function requestIdOf(req: IncomingMessage, trustProxy: number): string {
  const incoming = req.headers['x-request-id'];
  if (trustProxy > 0 && typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming)) return incoming;
  return randomUUID();
}

/** The request presents something that identifies its caller. */
function identified(req: IncomingMessage): boolean {
  const headers = req.headers;
  return headers.cookie !== undefined || headers.authorization !== undefined || headers['access-token'] !== undefined;
}

export function edge(options: EdgeOptions, next: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const requestId = requestIdOf(req, options.trustProxy);
    res.setHeader('x-request-id', requestId);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('vary', 'Origin');
    if (options.cookieSecure) res.setHeader('strict-transport-security', HSTS);
    if (identified(req)) res.setHeader('cache-control', 'no-store');
    const target = readRequest(req);
    if ('refusal' in target) {
      // Node reads and drops a body left unread, so the connection stays usable.
      const answer = errorAnswer(400, 'BAD_REQUEST', target.refusal);
      res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
      res.end(answer.body);
      return;
    }
    options.requests.run({ requestId }, () => next(req, res));
  };
}
