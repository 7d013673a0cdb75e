/**
 * What an idempotent request's answer is kept as, and the answer kept for a claim whose outcome
 * nobody saw (its replica died mid-request, or its answer could not be stored).
 *
 * An UPSTREAM_UNAVAILABLE kept under a key is final: the mutation may have run, so the same key can
 * never succeed, and a `Retry-After` (header or `extensions.retryAfterSeconds`) would invite the
 * very retries that cannot help. It is kept, and sent the first time too, without either, so every
 * replay is byte for byte the first answer.
 */
import { JSON_HEADERS } from '../errors/json-response';
import type { StoredAnswer } from './sealed-answer';

/** Headers of the first answer that the replay carries (the others are the replay's own). */
export const KEPT_HEADERS = ['content-type', 'retry-after'] as const;

const UNAVAILABLE = 'UPSTREAM_UNAVAILABLE';

interface ErrorEntry {
  extensions?: Record<string, unknown>;
}

/** Drops the retry hints of each UPSTREAM_UNAVAILABLE error; undefined when the body has none. */
function withoutRetryHints(body: string): string | undefined {
  // Most answers are not failures: no parse for them.
  if (!body.includes(UNAVAILABLE)) return undefined;
  let parsed: { errors?: unknown };
  try {
    parsed = JSON.parse(body) as { errors?: unknown };
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed.errors)) return undefined;
  const errors = parsed.errors as ErrorEntry[];
  if (!errors.some((error) => error.extensions?.code === UNAVAILABLE)) return undefined;
  for (const error of errors) {
    if (error.extensions?.code === UNAVAILABLE) delete error.extensions.retryAfterSeconds;
  }
  return JSON.stringify(parsed);
}

/** The answer as it is kept (and as it is sent the first time): `changed` when that is not `response`. */
export async function keptAnswerOf(response: Response): Promise<{ readonly answer: StoredAnswer; readonly changed: boolean }> {
  const body = await response.clone().text();
  const final = withoutRetryHints(body);
  const headers: Record<string, string> = {};
  for (const header of KEPT_HEADERS) {
    const value = response.headers.get(header);
    if (value !== null && !(final !== undefined && header === 'retry-after')) headers[header] = value;
  }
  return { answer: { status: response.status, headers, body: final ?? body }, changed: final !== undefined };
}

/** Kept for a claim whose holder is gone without an answer: the mutation may or may not have run. */
export function unknownOutcome(): StoredAnswer {
  const message = 'The outcome of this request is unknown: the gateway lost track of it while it ran. Check the state, then use a new Idempotency-Key to try again.';
  return {
    status: 503,
    headers: { 'content-type': JSON_HEADERS['content-type'] ?? 'application/json' },
    body: JSON.stringify({ errors: [{ message, extensions: { code: UNAVAILABLE } }] }),
  };
}
