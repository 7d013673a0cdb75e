/**
 * One gateway's per-request state and document facts, as createGatewayRuntime makes them, for
 * specs that assemble plugins themselves: each spread into the plugins that read or write it.
 */
import { DocumentFacts } from '../../src/request/executed';
import { createRequestState, type RequestState } from '../../src/gateway/request-state';

export function requestState(): RequestState & { readonly documents: DocumentFacts } {
  return { ...createRequestState(), documents: new DocumentFacts() };
}
