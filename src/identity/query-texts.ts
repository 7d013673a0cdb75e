/**
 * TRUSTED_DOCUMENTS_ONLY: who may still send a query text instead of a trusted document, decided
 * from the request's headers before its text is parsed (the identity itself is only found later,
 * in onExecute, after parsing and validation). The first strategy the request presents decides,
 * in useIdentity's order, so a browser's cookie cannot borrow a service account's rule by adding
 * an Authorization header; an anonymous caller may not.
 */
import { gatewayError, type GatewayError } from '../errors';
import type { IdentityStrategy } from './strategy';

/** The refusal a request sending a query text gets, or undefined when it may send one. */
export function queryTextRefusal(strategies: readonly IdentityStrategy[]): (request: Request) => GatewayError | undefined {
  return (request) => {
    for (const strategy of strategies) {
      const presented = strategy.presented(request);
      if (!presented) continue;
      if ('refusal' in presented) return presented.refusal;
      return presented.queryTexts ? undefined : gatewayError('PERSISTED_QUERY_ONLY');
    }
    return gatewayError('PERSISTED_QUERY_ONLY');
  };
}
