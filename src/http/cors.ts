/**
 * CORS for browser frontends on other origins (ALLOWED_ORIGINS), with credentials, and on
 * `/graphql` only. Every other path answers without CORS headers, so a browser hides its answers
 * from scripts of any origin: `/ops/` and `/metrics` (an XSS on an allowed origin must not read
 * `/ops/data` with an operator's cached Basic credentials), `/readiness` and `/healthcheck`, the PDF
 * download (a link, not a script), and the drop-in front (its clients are not browsers). An origin
 * not listed gets no CORS headers either, so browsers refuse its preflights (custom headers such
 * as X-CSRF). `Vary: Origin` is on every answer (src/http/edge.ts).
 */
import type { CORSOptions } from 'graphql-yoga';
import { pathnameOf } from '../request/url-path';

/** What a frontend sends: JSON, the CSRF header, its own request id, trace context, cache and idempotency controls. */
const ALLOWED_HEADERS = ['content-type', 'accept', 'x-csrf', 'x-request-id', 'traceparent', 'tracestate', 'baggage', 'cache-control', 'idempotency-key'];
/** What a frontend may read: when to retry, the id to quote, a cached answer's age, a replayed mutation. */
const EXPOSED_HEADERS = ['retry-after', 'x-request-id', 'age', 'idempotent-replayed'];

/** Yoga's `cors` option for these origins, on `graphqlEndpoint` only. */
export function corsFor(allowedOrigins: readonly string[], graphqlEndpoint = '/graphql'): (request: Request) => CORSOptions {
  return (request) => {
    const origin = request.headers.get('origin');
    if (origin === null || !allowedOrigins.includes(origin) || pathnameOf(request.url) !== graphqlEndpoint) return false;
    return { origin: [origin], credentials: true, methods: ['GET', 'POST'], allowedHeaders: ALLOWED_HEADERS, exposedHeaders: EXPOSED_HEADERS, maxAge: 600 };
  };
}
