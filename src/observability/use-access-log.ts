/**
 * The access log: one `request.completed` line per request (method, path, status, duration, the
 * executed root fields and the upstream user when known; never a credential). Requests answered by
 * the plugins before it (health, metrics, /ops, GraphiQL's page) are not logged.
 */
import type { Plugin } from 'graphql-yoga';
import type { ExecutedOperation } from '../gateway/executed';
import { pathnameOf } from '../http/url-path';
import type { RequestSlot } from '../request/slot';
import type { LogEvents } from './log-events';

export interface AccessLogOptions {
  readonly log: LogEvents;
  readonly clock: () => number;
  /** When each request reached this plugin. */
  readonly startedAt: RequestSlot<number>;
  /** The upstream user a request acted as, once known (an identity, a front sign-in's answer). */
  readonly uid: RequestSlot<string>;
  /** The executed operation of each request (gateway/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
}

export function useAccessLog({ log, clock, startedAt: started, uid: uids, operations }: AccessLogOptions): Plugin {
  return {
    onRequest({ request }) {
      started.set(request, clock());
    },
    onResponse({ request, response }) {
      const startedAt = started.get(request);
      if (startedAt === undefined) return;
      const operation = operations.get(request)?.names;
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
