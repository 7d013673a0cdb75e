/**
 * The request a piece of work belongs to, carried by AsyncLocalStorage from the Node request
 * listener through Yoga, Mesh and the upstream calls, so every log line written on behalf of a
 * request carries its id (the logger's mixin reads it) without passing the id to every call site.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  readonly requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequest<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The id of the request the current work belongs to, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
