/**
 * One SERVER span per HTTP request, around everything the gateway does for it (the edge, the body
 * limit, Yoga): it continues the caller's W3C trace context, and holds the request's spans in
 * context.ts for the operation and upstream spans and the log lines. It names no query string
 * (`url.path` only) and no header. `http.route` is the path when the gateway served it (not a
 * 404): the gateway's paths have no parameters, so routes stay few whatever clients send.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { RequestTrace } from './context';
import type { Tracing } from './provider';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);
const MAX_PATH = 256;

/** The method as semantic conventions name it: unknown ones are `_OTHER`. */
export function methodOf(method: string | undefined): string {
  const upper = (method ?? 'GET').toUpperCase();
  return METHODS.has(upper) ? upper : '_OTHER';
}

/** The request's path without its query string (which could carry anything). */
function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const end = raw.search(/[?#]/);
  return (end === -1 ? raw : raw.slice(0, end)).slice(0, MAX_PATH) || '/';
}

export function traceRequests(tracing: Tracing, next: (req: IncomingMessage, res: ServerResponse) => void) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const method = methodOf(req.method);
    const path = pathOf(req.url);
    const server = tracing.tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } }, tracing.extract(req.headers));
    const state: RequestTrace = { server };
    res.once('close', () => {
      const status = res.statusCode;
      server.setAttribute('http.response.status_code', status);
      if (status !== 404) {
        server.setAttribute('http.route', path);
        server.updateName(`${method} ${path}`);
      }
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

