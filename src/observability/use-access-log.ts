/**
 * The access log: one `request.completed` line per request (method, path, status, duration, the
 * executed root fields and the upstream user when known; never a credential). Requests answered by
 * the plugins before it (health, metrics, /ops, GraphiQL's page) are not logged. A request the
 * gateway sends through its own pipeline on a client's behalf (a PDF download's read) is part of
 * that client's request: it writes no line of its own, and its root fields and user go on the
 * client's line, so one download is one line.
 */
import type { Plugin } from 'graphql-yoga';
import type { ExecutedOperation } from '../request/executed';
import { pathnameOf } from '../request/url-path';
import type { RequestSlot } from '../request/slot';
import type { LogEvents } from './log-events';

export interface AccessLogOptions {
  readonly log: LogEvents;
  readonly clock: () => number;
  /** When each request reached this plugin. */
  readonly startedAt: RequestSlot<number>;
  /** The upstream user a request acted as, once known (an identity, a front sign-in's answer). */
  readonly uid: RequestSlot<string>;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** Internal request -> the client's request it serves (a PDF download's read). */
  readonly onBehalfOf: RequestSlot<Request>;
  /** The root fields of the internal requests a client's request was served by, for its line. */
  readonly servedNames: RequestSlot<string>;
}

export function useAccessLog({ log, clock, startedAt: started, uid: uids, operations, onBehalfOf, servedNames }: AccessLogOptions): Plugin {
  return {
    onRequest({ request }) {
      // A request the hot path handed over (src/hot-path/hot-path.ts) started there.
      if (!onBehalfOf.has(request) && !started.has(request)) started.set(request, clock());
    },
    onResponse({ request, response }) {
      const outer = onBehalfOf.get(request);
      if (outer) {
        const names = operations.get(request)?.names;
        if (names) servedNames.set(outer, names);
        const uid = uids.get(request);
        if (uid) uids.set(outer, uid);
        return;
      }
      const startedAt = started.get(request);
      if (startedAt === undefined) return;
      const operation = operations.get(request)?.names ?? servedNames.get(request);
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
