/**
 * The CSRF/origin check (csrf.ts) before anything acts on a browser's behalf: every request with
 * the session cookie, and every `login` (login CSRF). The drop-in front's API clients carry their
 * own credential, never a cookie the browser adds: their requests are exempt.
 *
 * One of the gateway's execute steps (src/gateway/execute-steps.ts): the hot path asks the same
 * plugin's `verdictOf`, which decides once per request, so a request the hot path hands to the
 * pipeline is not checked twice.
 */
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors';
import type { LogEvents } from '../observability/log-events';
import { checkCsrf, csrfLogFields, csrfMessage, type CsrfVerdict } from './csrf';
import type { ExecutedOperation } from '../request/executed';
import { RequestSlot } from '../request/slot';
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

export interface CsrfPlugin extends Plugin<{ readonly request: Request }> {
  /**
   * The verdict for a request with the session cookie or a `login`, undefined for any other;
   * decided the first time it is asked for the request, by whichever caller asks first.
   */
  verdictOf(request: Request, executed: ExecutedOperation): CsrfVerdict | undefined;
}

export function useCsrf({ allowedOrigins, trustProxy, cookieSecure, log, exempt, operations, sessionCookies }: CsrfOptions): CsrfPlugin {
  const verdicts = new RequestSlot<CsrfVerdict | undefined>();
  const verdictOf = (request: Request, executed: ExecutedOperation) =>
    verdicts.ensure(request, () => {
      const cookie = sessionCookies.of(request, cookieSecure);
      if (cookie === undefined && !executed.fields.some((field) => field.name.value === 'login')) return undefined;
      return checkCsrf(request, { allowedOrigins, trustProxy });
    });
  return {
    verdictOf,
    onExecute({ args, setResultAndStopExecution }) {
      const request = args.contextValue.request;
      const executed = operations.get(request);
      if (!executed || exempt(request)) return;
      const verdict = verdictOf(request, executed);
      if (!verdict || verdict.ok) return;
      log.csrfRefused(csrfLogFields(verdict));
      setResultAndStopExecution({ errors: [gatewayError('CSRF_CHECK_FAILED', csrfMessage(verdict))] });
    },
  };
}
