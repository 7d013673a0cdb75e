/**
 * One piece of per-request state, behind named methods. Slots are created per gateway
 * (src/gateway/request-state.ts) and handed to the plugins that use them, so two gateways in one
 * process never see each other's requests, and a request's state goes with it.
 *
 * A request's values, of every slot, are kept in one Map carried by the request itself (under a
 * symbol), keyed by the slot: a request is one object's property, not an entry in a WeakMap per
 * slot. WeakMap insertions are the costly part (ephemeron tables that grow between collections):
 * a WeakMap per slot cost the hot path about 9 µs per request, 5 % of its CPU (issue 44).
 */
const VALUES = Symbol('statement-gateway request state');

type Carrier = Request & { [VALUES]?: Map<RequestSlot<unknown>, unknown> };

function valuesOf(request: Request): Map<RequestSlot<unknown>, unknown> {
  const carrier = request as Carrier;
  return (carrier[VALUES] ??= new Map<RequestSlot<unknown>, unknown>());
}

export class RequestSlot<T> {
  get(request: Request): T | undefined {
    return (request as Carrier)[VALUES]?.get(this) as T | undefined;
  }

  has(request: Request): boolean {
    return (request as Carrier)[VALUES]?.has(this) ?? false;
  }

  set(request: Request, value: T): void {
    valuesOf(request).set(this, value);
  }

  /** The request's value, made by `initial` the first time it is asked for. */
  ensure(request: Request, initial: () => T): T {
    const values = valuesOf(request);
    if (values.has(this)) return values.get(this) as T;
    const value = initial();
    values.set(this, value);
    return value;
  }
}
