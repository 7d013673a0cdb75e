/**
 * `GET /statements/{otxId}/pdf` (`?inline=1` to open it in the browser): a statement's PDF for a
 * plain link, which can carry the session cookie but no X-CSRF header and no JSON body.
 *
 * It is one GraphQL read of the statement's `pdf` field, sent through this gateway's own pipeline
 * (not a second implementation): identity, rate limits, session activity, the upstream's access
 * check, the PDF cache, error mapping and the logs are the field's; the access log writes one line,
 * the download's, with the read's root fields and user. The read's Request is marked
 * (internal-requests.ts) so that the X-CSRF check and TRUSTED_DOCUMENTS_ONLY let it through; the
 * Origin, when a browser sends one, is checked here as /graphql checks it. The read never carries
 * the Origin, so it gets no CORS headers, and neither does the download.
 */
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from '../errors';
import type { LogEvents } from '../observability/log-events';
import type { RequestSlot } from '../request/slot';
import { checkOrigin, csrfLogFields, csrfMessage } from '../session/csrf';
import type { InternalRequests } from './internal-requests';
import { otxIdOfPath, pdfAnswer, pdfContentSecurityPolicy, PDF_QUERY, subresourceDestination, subresourceMessage } from './pdf-download';

export interface PdfDownloadsOptions {
  readonly internal: InternalRequests;
  readonly allowedOrigins: readonly string[];
  readonly trustProxy: number;
  readonly log: LogEvents;
  /** Where the access log learns that the read serves the download (one line for both). */
  readonly onBehalfOf: RequestSlot<Request>;
}

/** What the read passes on from the download's request: who it is, where from, its trace. */
const CARRIED_HEADERS = ['cookie', 'authorization', 'user-agent', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'traceparent', 'tracestate', 'baggage'];

export function usePdfDownloads({ internal, allowedOrigins, trustProxy, log, onBehalfOf }: PdfDownloadsOptions): Plugin {
  const contentSecurityPolicy = pdfContentSecurityPolicy(allowedOrigins);
  return {
    async onRequest(payload) {
      const { request, url, serverContext } = payload;
      const otxId = otxIdOfPath(url.pathname);
      if (otxId === undefined) return;
      if (request.method !== 'GET') {
        payload.endResponse(errorResponse(405, 'BAD_REQUEST', 'Statement PDFs are served over GET.', { headers: { allow: 'GET' } }));
        return;
      }
      const destination = subresourceDestination(request);
      if (destination !== undefined) {
        log.csrfRefused({ reason: 'subresource-destination' });
        payload.endResponse(errorResponse(403, 'CSRF_CHECK_FAILED', subresourceMessage(destination)));
        return;
      }
      const verdict = checkOrigin(request, { allowedOrigins, trustProxy });
      if (!verdict.ok) {
        log.csrfRefused(csrfLogFields(verdict));
        payload.endResponse(errorResponse(403, 'CSRF_CHECK_FAILED', csrfMessage(verdict)));
        return;
      }
      const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json' });
      for (const name of CARRIED_HEADERS) {
        const value = request.headers.get(name);
        if (value !== null) headers.set(name, value);
      }
      const read = new Request(new URL('/graphql', url), { method: 'POST', headers, body: JSON.stringify({ query: PDF_QUERY, variables: { ids: otxId === null ? [] : [otxId] } }), signal: request.signal });
      // An id that cannot exist still goes through the read (an empty list matches nothing): who
      // is asking is checked first, and the answer is the one of any unknown id.
      onBehalfOf.set(read, request);
      const inner = await internal.send(read, serverContext);
      payload.endResponse(await pdfAnswer(inner, otxId ?? '', url.searchParams.get('inline') === '1' ? 'inline' : 'attachment', contentSecurityPolicy));
    },
  };
}
