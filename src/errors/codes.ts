/** The contract's error codes and their HTTP statuses (docs/reference.md, "Errors"). */
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
  // 200, as Apollo's and urql's persisted-query links expect: they then stop sending hashes.
  PERSISTED_QUERY_NOT_SUPPORTED: 200,
  NOT_FOUND: 404,
  IDEMPOTENCY_KEY_IN_USE: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  INTERNAL_SERVER_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Headers a code always carries unless its thrower names its own value: every UPSTREAM_UNAVAILABLE
 * has a Retry-After (the contract), so that clients back off instead of retrying at once. An open
 * circuit passes the seconds until it half-opens, which win over this guess.
 */
const DEFAULT_HEADERS: Partial<Record<ErrorCode, Readonly<Record<string, string>>>> = {
  UPSTREAM_UNAVAILABLE: { 'retry-after': '5' },
};

/** `headers` (names lowercased) over the code's default headers; undefined when there are none. */
export function headersFor(code: ErrorCode, headers: Readonly<Record<string, string>> | undefined): Readonly<Record<string, string>> | undefined {
  const own = headers ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])) : undefined;
  const defaults = DEFAULT_HEADERS[code];
  return defaults || own ? { ...defaults, ...own } : undefined;
}

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
  // The exact text APQ clients compare with.
  PERSISTED_QUERY_NOT_SUPPORTED: 'PersistedQueryNotSupported',
  NOT_FOUND: 'No statement with this otxId, or none this identity may see.',
  IDEMPOTENCY_KEY_IN_USE: 'A request with this Idempotency-Key is still running. Try again shortly.',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was used for a different request. Use a new key for a new request.',
  INTERNAL_SERVER_ERROR: 'Unexpected error.',
};
