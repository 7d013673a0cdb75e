/**
 * What the audit trail says of a request's Idempotency-Key: a short hash of the key's record name,
 * so that a replay's line and the line of the run it replays can be tied together, and whether
 * the answer was a replay (the mutation did not run again). Never the key itself: a client may put
 * anything in it, and it must open nothing in the log.
 */
import { createHash } from 'node:crypto';
import { RequestSlot } from '../request/slot';

export interface IdempotencyMark {
  /** 12 hex digits of the SHA-256 of the key's record name (an HMAC under a derived key). */
  readonly keyHash: string;
  readonly replayed: boolean;
}

/** Each request's mark, written by useIdempotency and read by the audit log. */
export class IdempotencyMarks extends RequestSlot<IdempotencyMark> {
  mark(request: Request, recordKey: string, replayed: boolean): void {
    this.set(request, { keyHash: createHash('sha256').update(recordKey).digest('hex').slice(0, 12), replayed });
  }
}
