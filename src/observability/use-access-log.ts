/**
 * The access log: one `request.completed` line per request (method, path, status, duration, the
 * executed root fields and the upstream user when known; never a credential). Requests answered by
 * the plugins before it (health, metrics, /ops, GraphiQL's page) are not logged.
 */
import type { Plugin } from 'graphql-yoga';
import { executedOf } from '../gateway/executed';
import { pathnameOf } from '../http/url-path';
import type { LogEvents } from './log-events';

const started = new WeakMap<Request, number>();
const uids = new WeakMap<Request, string>();

/** The upstream user a request acted as, once known (an identity, a front sign-in's answer). */
export function noteRequestUid(request: Request, uid: string): void {
  uids.set(request, uid);
}

export interface AccessLogOptions {
  readonly log: LogEvents;
  readonly clock: () => number;
}

export function useAccessLog({ log, clock }: AccessLogOptions): Plugin {
  return {
    onRequest({ request }) {
      started.set(request, clock());
    },
    onResponse({ request, response }) {
      const startedAt = started.get(request);
      if (startedAt === undefined) return;
      const operation = executedOf(request)?.names;
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
