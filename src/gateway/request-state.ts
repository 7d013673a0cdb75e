/**
 * Every piece of per-request state of one gateway, each behind its own slot (src/request/slot.ts),
 * created once per gateway by createGatewayRuntime: two gateways in one process share none of it.
 * Plugins get only the slots they use; the module that writes a slot names what it holds.
 */
import type { ExecutedOperation } from '../request/executed';
import { DropInStates } from '../drop-in/state';
import { IdempotencyMarks } from '../idempotency/audit-mark';
import { ClientAddresses } from '../protection/client-address';
import { RequestSlot } from '../request/slot';
import { SessionCookies } from '../session/cookie';
import { SetCookies } from '../session/cookie-jar';
import { UpstreamOutcomes } from '../upstream/outcome';

export interface RequestState {
  /** The executed operation and its root fields (useExecutedOperation, first in onExecute). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** The client's address (useClientAddress, first of all plugins). */
  readonly addresses: ClientAddresses;
  /** Set-Cookie values decided while handling the request (useSessionCookies adds them). */
  readonly setCookies: SetCookies;
  /** The session id the request's cookie carries, parsed once. */
  readonly sessionCookies: SessionCookies;
  /** What the request's upstream calls came to (answered, sent, the last failure). */
  readonly outcomes: UpstreamOutcomes;
  /** The drop-in front's state of a request on one of its paths. */
  readonly dropIn: DropInStates;
  /** When the access log first saw the request. */
  readonly startedAt: RequestSlot<number>;
  /** The upstream user the request acted as, once known (an identity, a front sign-in's answer). */
  readonly uid: RequestSlot<string>;
  /** A request the gateway sends through its own pipeline -> the client's request it serves. */
  readonly onBehalfOf: RequestSlot<Request>;
  /** The root fields of the internal requests that served a client's request (its access-log line). */
  readonly servedNames: RequestSlot<string>;
  /** What the audit log says of the request's Idempotency-Key (useIdempotency writes it). */
  readonly idempotencyMarks: IdempotencyMarks;
}

export function createRequestState(): RequestState {
  return {
    operations: new RequestSlot(),
    addresses: new ClientAddresses(),
    setCookies: new SetCookies(),
    sessionCookies: new SessionCookies(),
    outcomes: new UpstreamOutcomes(),
    dropIn: new DropInStates(),
    startedAt: new RequestSlot(),
    uid: new RequestSlot(),
    onBehalfOf: new RequestSlot(),
    servedNames: new RequestSlot(),
    idempotencyMarks: new IdempotencyMarks(),
  };
}
