/**
 * The CSRF/origin check (csrf.ts) before anything acts on a browser's behalf: every request with
 * the session cookie, and every `login` (login CSRF). The drop-in front's API clients carry their
 * own credential, never a cookie the browser adds: their requests are exempt.
 */
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors';
import type { LogEvents } from '../observability/log-events';
import { checkCsrf, csrfLogFields, csrfMessage } from './csrf';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';
import type { SessionCookies } from './cookie';

export interface CsrfOptions {
  readonly allowedOrigins: readonly string[];
  readonly trustProxy: number;
  readonly cookieSecure: boolean;
  readonly log: LogEvents;
  /** Requests that never act with the session cookie. */
  readonly exempt: (request: Request) => boolean;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** The session id each request's cookie carries. */
  readonly sessionCookies: SessionCookies;
}

export function useCsrf({ allowedOrigins, trustProxy, cookieSecure, log, exempt, operations, sessionCookies }: CsrfOptions): Plugin<{ readonly request: Request }> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const request = args.contextValue.request;
      const executed = operations.get(request);
      if (!executed || exempt(request)) return;
      const cookie = sessionCookies.of(request, cookieSecure);
      if (cookie === undefined && !executed.fields.some((field) => field.name.value === 'login')) return;
      const verdict = checkCsrf(request, { allowedOrigins, trustProxy });
      if (verdict.ok) return;
      log.csrfRefused(csrfLogFields(verdict));
      setResultAndStopExecution({ errors: [gatewayError('CSRF_CHECK_FAILED', csrfMessage(verdict))] });
    },
  };
}
