/**
 * The CSRF/origin check (csrf.ts) before anything acts on a browser's behalf: every request with
 * the session cookie, and every `login` (login CSRF). The drop-in front's API clients carry their
 * own credential, never a cookie the browser adds: their requests are exempt.
 */
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors';
import type { LogEvents } from '../observability/log-events';
import { checkCsrf, csrfLogFields, csrfMessage, type CsrfVerdict } from './csrf';
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

export type CsrfStepOptions = Pick<CsrfOptions, 'allowedOrigins' | 'trustProxy' | 'cookieSecure' | 'sessionCookies'>;

/**
 * The step itself, for both callers (this plugin, the hot path in src/http/hot-path.ts): the
 * verdict for a request with the session cookie or a `login`, undefined for any other.
 */
export function csrfStep(request: Request, executed: ExecutedOperation, { allowedOrigins, trustProxy, cookieSecure, sessionCookies }: CsrfStepOptions): CsrfVerdict | undefined {
  const cookie = sessionCookies.of(request, cookieSecure);
  if (cookie === undefined && !executed.fields.some((field) => field.name.value === 'login')) return undefined;
  return checkCsrf(request, { allowedOrigins, trustProxy });
}

export function useCsrf(options: CsrfOptions): Plugin<{ readonly request: Request }> {
  const { log, exempt, operations } = options;
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const request = args.contextValue.request;
      const executed = operations.get(request);
      if (!executed || exempt(request)) return;
      const verdict = csrfStep(request, executed, options);
      if (!verdict || verdict.ok) return;
      log.csrfRefused(csrfLogFields(verdict));
      setResultAndStopExecution({ errors: [gatewayError('CSRF_CHECK_FAILED', csrfMessage(verdict))] });
    },
  };
}
