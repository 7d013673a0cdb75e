/**
 * One piece of per-request state: a WeakMap keyed by the request, behind named methods. Slots are
 * created per gateway (src/gateway/request-state.ts) and handed to the plugins that use them, so
 * two gateways in one process never see each other's requests, and a request's state goes with it.
 */
export class RequestSlot<T> {
  readonly #values = new WeakMap<Request, T>();

  get(request: Request): T | undefined {
    return this.#values.get(request);
  }

  has(request: Request): boolean {
    return this.#values.has(request);
  }

  set(request: Request, value: T): void {
    this.#values.set(request, value);
  }

  /** The request's value, made by `initial` the first time it is asked for. */
  ensure(request: Request, initial: () => T): T {
    let value = this.#values.get(request);
    if (value === undefined && !this.#values.has(request)) this.#values.set(request, (value = initial()));
    return value as T;
  }
}
