/**
 * What the upstream calls of a request came to, written by the credential broker (and the PDF
 * cache, which calls the upstream itself), read by error mapping and cache invalidation: Mesh's
 * delegation may lose the broker's error on its way to the result.
 */
import type { GatewayError } from '../errors';

export interface UpstreamOutcome {
  /** At least one upstream call got an HTTP answer. */
  readonly answered: boolean;
  /**
   * At least one upstream call was made (answered or not: a lost answer may still have run it);
   * false when every call was refused before leaving (an open circuit).
   */
  readonly sent: boolean;
  /** The last upstream failure raised. */
  readonly failure: GatewayError | undefined;
}

const outcomes = new WeakMap<Request, { answered: boolean; sent: boolean; failure: GatewayError | undefined }>();

const entryOf = (request: Request) => {
  let entry = outcomes.get(request);
  if (!entry) outcomes.set(request, (entry = { answered: false, sent: false, failure: undefined }));
  return entry;
};

export function upstreamOutcome(request: Request): UpstreamOutcome {
  return outcomes.get(request) ?? { answered: false, sent: false, failure: undefined };
}

export function noteUpstreamAnswered(request: Request): void {
  const entry = entryOf(request);
  entry.answered = true;
  entry.sent = true;
}

/** A call was made that did not get an answer (refused, reset, timed out, 5xx). */
export function noteUpstreamSent(request: Request): void {
  entryOf(request).sent = true;
}

/** Records the failure and returns it, for `throw noteUpstreamFailure(request, error)`. */
export function noteUpstreamFailure<E extends GatewayError>(request: Request, error: E): E {
  entryOf(request).failure = error;
  return error;
}
