/**
 * One SERVER span per HTTP request, around everything the gateway does for it (the edge, the body
 * limit, Yoga): it continues the caller's W3C trace context, and holds the request's spans in
 * context.ts for the operation and upstream spans and the log lines. It names no query string and
 * no header, and no more of the path than the gateway's own route template (`GET
 * /statements/{otxId}/pdf`, never the otxId): a path holds what a client chose (an id, an e-mail,
 * a made-up path), which the contract keeps out of spans and which would make routes countless. A
 * path that matches no route (or that the edge refuses) has no `http.route`, and keeps its first
 * segment in `url.path` only when that segment begins one of the gateway's own routes (`/statements`
 * of a mistyped PDF path): any other first segment is the client's own choice (`/demo@example.com`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { readRequest } from '../request/request-target';
import type { RequestTrace } from './context';
import type { Tracing } from './provider';

export interface TraceRequestsOptions {
  /** The gateway's route template a (checked) path belongs to, or undefined (src/gateway/route-templates.ts). */
  readonly routeOf: (path: string) => string | undefined;
  /** The first segments of the gateway's routes (`/graphql`, `/statements`, ...): all an unmatched path may keep. */
  readonly firstSegments: ReadonlySet<string>;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);
/** A first segment longer than this is cut: it still names no route. */
const MAX_SEGMENT = 64;

/** The method as semantic conventions name it: unknown ones are `_OTHER`. */
export function methodOf(method: string | undefined): string {
  const upper = (method ?? 'GET').toUpperCase();
  return METHODS.has(upper) ? upper : '_OTHER';
}

/**
 * `/a` of `/a/secret-thing/x?q`; undefined for a target that is not a path (absolute-form, `*`).
 * A refused target is cut at whatever some reader takes for a separator too (`\`, `%2F`, `%5C`).
 */
export function firstSegmentOf(target: string | undefined): string | undefined {
  if (!target?.startsWith('/')) return undefined;
  const end = target.slice(1).search(/[/\\?#]|%2f|%5c/i);
  return (end === -1 ? target : target.slice(0, end + 1)).slice(0, MAX_SEGMENT);
}

export function traceRequests(tracing: Tracing, { routeOf, firstSegments }: TraceRequestsOptions, next: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const method = methodOf(req.method);
    // The same reading as the edge's: a target it refuses matches no route.
    const target = readRequest(req);
    const route = 'path' in target ? routeOf(target.path) : undefined;
    const first = route ? undefined : firstSegmentOf(req.url);
    const path = route ?? (first !== undefined && firstSegments.has(first) ? first : undefined);
    const server = tracing.tracer.startSpan(
      route ? `${method} ${route}` : method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, ...(path === undefined ? {} : { 'url.path': path }), ...(route ? { 'http.route': route } : {}) } },
      tracing.extract(req.headers),
    );
    const state: RequestTrace = { server };
    res.once('close', () => {
      const status = res.statusCode;
      server.setAttribute('http.response.status_code', status);
      const code = state.errorCode ?? (status >= 400 ? `HTTP_${status}` : res.writableFinished ? undefined : 'CLIENT_CLOSED');
      if (code !== undefined) {
        server.setAttribute('error.type', code);
        server.setStatus({ code: SpanStatusCode.ERROR, message: code });
      }
      // An operation cut short (an error thrown before its answer) ends with its request.
      state.operation?.end();
      server.end();
    });
    tracing.contexts.run(state, () => next(req, res));
  };
}
