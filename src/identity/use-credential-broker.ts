/**
 * Credential brokering on every upstream call Mesh makes (brokered-fetch.ts): the call gets the
 * devise headers of the request's identity (identity/strategy.ts) and, of Mesh's own headers, only
 * these two; nothing of the client's request (no cookie, no X-CSRF, no API key).
 */
import type { MeshFetch, MeshPlugin } from '@graphql-mesh/types';
import { OperationTypeNode } from 'graphql';
import { isIdentityContext, type IdentityContext } from './use-identity';
import { brokeredFetch } from './brokered-fetch';
import type { UpstreamFetch } from '../upstream/fetch';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';
import type { UpstreamOutcomes } from '../upstream/outcome';

export interface CredentialBrokerOptions {
  readonly upstreamFetch: UpstreamFetch;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** Each request's upstream outcome (upstream/outcome.ts). */
  readonly outcomes: UpstreamOutcomes;
}

/** Only these request headers of Mesh's own leave for the upstream. */
const FORWARDED_HEADERS = new Set(['accept', 'content-type']);

/**
 * A call of an executed query: safe to repeat. Any call of a mutation, and any call whose
 * operation is not known, is made once. (Sign-in and sign-out bring their own fetch: mesh-auth.ts.)
 */
function safeToRepeat(operations: RequestSlot<ExecutedOperation>, request: Request): boolean {
  return operations.get(request)?.operation.operation === OperationTypeNode.QUERY;
}

export function useCredentialBroker({ upstreamFetch, operations, outcomes }: CredentialBrokerOptions): MeshPlugin<IdentityContext> {
  return {
    onFetch({ context, info, setFetchFn }) {
      if (!isIdentityContext(context)) return;
      const operation = info?.fieldName ?? 'unknown';
      const brokered: MeshFetch = (url, init = {}) => {
        const headers: Record<string, string> = {};
        // Mesh passes a plain object or a Headers instance, depending on the handler.
        const given: Iterable<[string, string]> = init.headers instanceof Headers ? init.headers.entries() : Object.entries(init.headers ?? {});
        for (const [name, value] of given) {
          if (FORWARDED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
        }
        // The identity is read when the call is made: a `login` earlier in the document sets it.
        return brokeredFetch(upstreamFetch, url, { ...init, headers }, {
          request: context.request, identity: context.identity, upstream: context.upstream, operation, outcomes,
          ...(safeToRepeat(operations, context.request) ? { retry: 'safe' as const } : {}),
        });
      };
      setFetchFn(brokered);
    },
  };
}
