/**
 * The request a piece of work belongs to, carried by AsyncLocalStorage from the Node request
 * listener through Yoga, Mesh and the upstream calls, so every log line written on behalf of a
 * request carries its id (the logger's mixin reads it) without passing the id to every call site.
 * One storage per gateway (created by startGateway): two gateways in one process share none.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  readonly requestId: string;
}

export interface RequestContexts {
  run<T>(context: RequestContext, work: () => T): T;
  /** The id of the request the current work belongs to, if any. */
  currentRequestId(): string | undefined;
}

export function createRequestContexts(): RequestContexts {
  const storage = new AsyncLocalStorage<RequestContext>();
  return {
    run: (context, work) => storage.run(context, work),
    currentRequestId: () => storage.getStore()?.requestId,
  };
}
