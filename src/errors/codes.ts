/** The contract's error codes and their HTTP statuses (shared/contract/gateway.md, "Errors"). */
export const ERROR_STATUS = {
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  CSRF_CHECK_FAILED: 403,
  RATE_LIMITED: 429,
  BAD_REQUEST: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  QUERY_TOO_COMPLEX: 400,
  PAYLOAD_TOO_LARGE: 413,
  UPSTREAM_UNAVAILABLE: 503,
  UPSTREAM_ERROR: 502,
  SESSION_STORE_UNAVAILABLE: 503,
  PERSISTED_QUERY_NOT_FOUND: 400,
  PERSISTED_QUERY_ONLY: 400,
  IDEMPOTENCY_KEY_IN_USE: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  INTERNAL_SERVER_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

/** What the client reads when nothing more specific may be said. */
export const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  UNAUTHENTICATED: 'Not signed in, or the session has ended. Sign in again.',
  INVALID_CREDENTIALS: 'Wrong e-mail or password.',
  CSRF_CHECK_FAILED: 'Cross-site request refused: send the X-CSRF header from an allowed origin.',
  RATE_LIMITED: 'Too many requests. Try again later.',
  BAD_REQUEST: 'Bad request.',
  GRAPHQL_PARSE_FAILED: 'The GraphQL document could not be parsed.',
  GRAPHQL_VALIDATION_FAILED: 'The GraphQL document is not valid against the schema.',
  QUERY_TOO_COMPLEX: 'The query is too complex.',
  PAYLOAD_TOO_LARGE: 'The request body is too large.',
  UPSTREAM_UNAVAILABLE: 'The Statement Filing Service is unavailable. Try again later.',
  UPSTREAM_ERROR: 'The Statement Filing Service answered unexpectedly.',
  SESSION_STORE_UNAVAILABLE: 'The session store is unavailable. Try again later.',
  PERSISTED_QUERY_NOT_FOUND: 'No trusted document has this id.',
  PERSISTED_QUERY_ONLY: 'Only trusted documents are accepted here: send a documentId instead of a query text.',
  IDEMPOTENCY_KEY_IN_USE: 'A request with this Idempotency-Key is still running. Try again shortly.',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was used for a different request. Use a new key for a new request.',
  INTERNAL_SERVER_ERROR: 'Unexpected error.',
};
