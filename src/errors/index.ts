/**
 * Client-facing errors. Every error a client sees is built here: a GraphQLError whose extensions
 * hold the contract's `code` and the HTTP status (`extensions.http.status`, which Yoga reads).
 */
import { GraphQLError } from 'graphql';
import { DEFAULT_MESSAGES, ERROR_STATUS, headersFor, isErrorCode, type ErrorCode } from './codes';
import { retryAfterExtension } from './error-response';

export { ERROR_STATUS, isErrorCode, type ErrorCode } from './codes';
export { errorAnswer, errorResponse, type ErrorAnswer, type ErrorResponseInit } from './error-response';

export interface GatewayErrorOptions {
  /** Extra response headers, such as Retry-After. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Logged, never shown. */
  readonly cause?: unknown;
  /** Overrides the code's status (BAD_REQUEST also covers 405, 411 and 415). */
  readonly status?: number;
}

export class GatewayError extends GraphQLError {
  readonly code: ErrorCode;
  readonly internalCause: unknown;

  constructor(code: ErrorCode, message: string = DEFAULT_MESSAGES[code], options: GatewayErrorOptions = {}) {
    const headers = headersFor(code, options.headers);
    super(message, {
      extensions: {
        code,
        http: { status: options.status ?? ERROR_STATUS[code], ...(headers ? { headers: { ...headers } } : {}) },
      },
    });
    // The name stays 'GraphQLError': the HTTP executor then passes the error on as it is
    // instead of wrapping it in one that carries the upstream URL.
    this.code = code;
    this.internalCause = options.cause;
  }
}

export function gatewayError(code: ErrorCode, message?: string, options?: GatewayErrorOptions): GatewayError {
  return new GatewayError(code, message, options);
}

/** Walks `originalError` links (Mesh and graphql-tools wrap errors several times). */
export function findGatewayError(error: unknown): GatewayError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current; depth++) {
    if (current instanceof GatewayError) return current;
    if (current instanceof Error) {
      const code = (current as { extensions?: { code?: unknown } }).extensions?.code;
      const http = (current as { extensions?: { http?: { status?: unknown; headers?: unknown } } }).extensions?.http;
      if (current instanceof GraphQLError && isErrorCode(code) && http) {
        // Yoga's own request errors carry the contract's code with a status of their own (405).
        return new GatewayError(code, current.message, {
          ...(typeof http.status === 'number' ? { status: http.status } : {}),
          ...(typeof http.headers === 'object' && http.headers !== null ? { headers: http.headers as Record<string, string> } : {}),
        });
      }
      current = (current as { originalError?: unknown }).originalError ?? (current as { cause?: unknown }).cause;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/** A client-safe error: the message and code only, with the path of the original. */
export function clientError(
  code: ErrorCode,
  message: string,
  path?: readonly (string | number)[],
  headers?: Readonly<Record<string, string>>,
  /** Overrides the code's status (BAD_REQUEST also covers 405 and 415). */
  status: number = ERROR_STATUS[code],
): GraphQLError {
  headers = headersFor(code, headers);
  return new GraphQLError(message, {
    ...(path ? { path } : {}),
    extensions: {
      code,
      ...retryAfterExtension(headers),
      http: { status, ...(headers ? { headers: { ...headers } } : {}) },
    },
  });
}

export { DEFAULT_MESSAGES };
