/**
 * What the upstream calls of a request came to, written by the credential broker (and the PDF
 * cache, which calls the upstream itself), read by error mapping and cache invalidation: Mesh's
 * delegation may lose the broker's error on its way to the result.
 */
import type { GatewayError } from '../errors';

export interface UpstreamOutcome {
  /** At least one upstream call got an HTTP answer. */
  readonly answered: boolean;
  /** The last upstream failure raised. */
  readonly failure: GatewayError | undefined;
}

const outcomes = new WeakMap<Request, { answered: boolean; failure: GatewayError | undefined }>();

const entryOf = (request: Request) => {
  let entry = outcomes.get(request);
  if (!entry) outcomes.set(request, (entry = { answered: false, failure: undefined }));
  return entry;
};

export function upstreamOutcome(request: Request): UpstreamOutcome {
  return outcomes.get(request) ?? { answered: false, failure: undefined };
}

export function noteUpstreamAnswered(request: Request): void {
  entryOf(request).answered = true;
}

/** Records the failure and returns it, for `throw noteUpstreamFailure(request, error)`. */
export function noteUpstreamFailure<E extends GatewayError>(request: Request, error: E): E {
  entryOf(request).failure = error;
  return error;
}
