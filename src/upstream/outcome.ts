/**
 * What the upstream calls of a request came to, written by the credential broker (and the PDF
 * cache, which calls the upstream itself), read by error mapping and cache invalidation: Mesh's
 * delegation may lose the broker's error on its way to the result.
 */
import type { GatewayError } from '../errors';
import { RequestSlot } from '../request/slot';

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

/** Each request's upstream outcome, as its upstream calls went. */
export class UpstreamOutcomes extends RequestSlot<{ answered: boolean; sent: boolean; failure: GatewayError | undefined }> {
  of(request: Request): UpstreamOutcome {
    return this.get(request) ?? { answered: false, sent: false, failure: undefined };
  }

  noteAnswered(request: Request): void {
    const entry = this.#entryOf(request);
    entry.answered = true;
    entry.sent = true;
  }

  /** A call was made that did not get an answer (refused, reset, timed out, 5xx). */
  noteSent(request: Request): void {
    this.#entryOf(request).sent = true;
  }

  /** Records the failure and returns it, for `throw outcomes.noteFailure(request, error)`. */
  noteFailure<E extends GatewayError>(request: Request, error: E): E {
    this.#entryOf(request).failure = error;
    return error;
  }

  #entryOf(request: Request) {
    return this.ensure(request, () => ({ answered: false, sent: false, failure: undefined }));
  }
}
