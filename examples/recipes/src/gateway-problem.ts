/**
 * What both recipes turn a failed operation into: the contract's `extensions.code`, the HTTP
 * status and the wait the gateway asked for. A page acts on `code` (never on the message): the
 * gateway answers 401, 403, 429 and 503 with a GraphQL body, which Apollo Client and urql report
 * differently (a GraphQL error, a server error with the body as text); the recipes read it either way.
 */
export interface GatewayProblem {
  /** `extensions.code`; `NETWORK_ERROR` when no answer was read (down, or a CORS refusal). */
  readonly code: string;
  readonly message: string;
  readonly status?: number;
  /** RATE_LIMITED, UPSTREAM_UNAVAILABLE, IDEMPOTENCY_KEY_IN_USE: `extensions.retryAfterSeconds`, else `Retry-After`. */
  readonly retryAfterSeconds?: number;
}

interface ErrorBody {
  errors?: readonly { message?: string; extensions?: { code?: unknown; retryAfterSeconds?: unknown } }[];
}

/** The problem in a GraphQL error list (a parsed body, or a library's list of GraphQL errors). */
export function problemOf(errors: ErrorBody['errors'], response?: Response): GatewayProblem | undefined {
  const first = errors?.[0];
  if (!first) return undefined;
  const fromBody = Number(first.extensions?.retryAfterSeconds);
  const fromHeader = Number(response?.headers.get('retry-after'));
  const wait = fromBody > 0 ? fromBody : fromHeader > 0 ? fromHeader : undefined;
  return {
    code: typeof first.extensions?.code === 'string' ? first.extensions.code : 'UNKNOWN',
    message: first.message ?? '',
    ...(response ? { status: response.status } : {}),
    ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
  };
}

/** A non-2xx answer whose body a library kept as text: its GraphQL errors, when it has any. */
export function problemOfBody(bodyText: string, response: Response): GatewayProblem | undefined {
  try {
    return problemOf((JSON.parse(bodyText) as ErrorBody).errors, response);
  } catch {
    return undefined;
  }
}

/** What a page does with each code (docs/frontends.md, "Error codes"). */
export function whatToDo(problem: GatewayProblem): 'login' | 'wait' | 'retry-later' | 'setup' | 'report' {
  switch (problem.code) {
    case 'UNAUTHENTICATED':
      return 'login';
    case 'RATE_LIMITED':
    case 'UPSTREAM_UNAVAILABLE':
    case 'IDEMPOTENCY_KEY_IN_USE':
      return 'wait';
    case 'SESSION_STORE_UNAVAILABLE':
    case 'NETWORK_ERROR':
      return 'retry-later';
    case 'CSRF_CHECK_FAILED':
    case 'PERSISTED_QUERY_ONLY':
      return 'setup';
    default:
      return 'report';
  }
}
