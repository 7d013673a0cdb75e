/**
 * Errors the gateway answers itself, outside GraphQL execution (unknown paths, wrong methods and
 * media types, operator endpoints without their token, bodies over the limit), in the contract's
 * shape: `{"errors":[{"message":…,"extensions":{"code":…}}]}`. One builder, so that a client
 * reads every such answer as it reads a GraphQL error.
 */
import { JSON_HEADERS } from './json-response';
import { headersFor, type ErrorCode } from './codes';

export interface ErrorResponseInit {
  /** Extra response headers (Allow, WWW-Authenticate, Retry-After, Connection). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extensions beside `code`. */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** What a Node listener writes, for answers given before a fetch Response exists (body-limit.ts). */
export interface ErrorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * `extensions.retryAfterSeconds` for a numeric Retry-After header: a page cannot always read the
 * header (a proxy may drop it, CORS must expose it), so the wait travels in the error too.
 */
export function retryAfterExtension(headers: Readonly<Record<string, string>> | undefined): { retryAfterSeconds?: number } {
  const retryAfter = headers?.['retry-after'];
  return retryAfter !== undefined && Number.isFinite(Number(retryAfter)) ? { retryAfterSeconds: Number(retryAfter) } : {};
}

export function errorAnswer(status: number, code: ErrorCode, message: string, init: ErrorResponseInit = {}): ErrorAnswer {
  const headers = headersFor(code, init.headers);
  const extensions = { code, ...retryAfterExtension(headers), ...init.extensions };
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify({ errors: [{ message, extensions }] }) };
}

export function errorResponse(status: number, code: ErrorCode, message: string, init: ErrorResponseInit = {}): Response {
  const { body, ...head } = errorAnswer(status, code, message, init);
  return new Response(body, head);
}
