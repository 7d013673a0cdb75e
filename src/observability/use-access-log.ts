/**
 * The access log: one `request.completed` line per request (method, path, status, duration, the
 * executed root fields and the upstream user when known; never a credential). Requests answered by
 * the plugins before it (health, metrics, /ops, GraphiQL's page) are not logged. A request the
 * gateway sends through its own pipeline on a client's behalf (a PDF download's read) is part of
 * that client's request: it writes no line of its own, and its root fields and user go on the
 * client's line, so one download is one line.
 */
import type { Plugin } from 'graphql-yoga';
import { executedOf } from '../gateway/executed';
import { pathnameOf } from '../http/url-path';
import type { LogEvents } from './log-events';

const started = new WeakMap<Request, number>();
const uids = new WeakMap<Request, string>();
/** An internal request's operation names, for the line of the client's request it serves. */
const operations = new WeakMap<Request, string>();
/** Internal request -> the client's request it serves. */
const onBehalfOf = new WeakMap<Request, Request>();

/** The upstream user a request acted as, once known (an identity, a front sign-in's answer). */
export function noteRequestUid(request: Request, uid: string): void {
  uids.set(request, uid);
}

/** `inner` is sent through the pipeline to serve `outer`: logged as part of `outer`, not on its own. */
export function noteInternalRequest(inner: Request, outer: Request): void {
  onBehalfOf.set(inner, outer);
}

export interface AccessLogOptions {
  readonly log: LogEvents;
  readonly clock: () => number;
}

export function useAccessLog({ log, clock }: AccessLogOptions): Plugin {
  return {
    onRequest({ request }) {
      if (!onBehalfOf.has(request)) started.set(request, clock());
    },
    onResponse({ request, response }) {
      const outer = onBehalfOf.get(request);
      if (outer) {
        const names = executedOf(request)?.names;
        if (names) operations.set(outer, names);
        const uid = uids.get(request);
        if (uid) uids.set(outer, uid);
        return;
      }
      const startedAt = started.get(request);
      if (startedAt === undefined) return;
      const operation = executedOf(request)?.names ?? operations.get(request);
      const uid = uids.get(request);
      log.requestCompleted({
        method: request.method,
        path: pathnameOf(request.url),
        status: response.status,
        durationMs: clock() - startedAt,
        ...(operation ? { operation } : {}),
        ...(uid ? { uid } : {}),
      });
    },
  };
}
