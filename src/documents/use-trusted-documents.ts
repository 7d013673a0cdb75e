/**
 * Trusted documents (the contract's "persisted operations"): a request names one of
 * TRUSTED_DOCUMENTS_FILE's documents by its SHA-256 instead of sending its text, and gets the
 * document parsed at start (no parse; Yoga's validation cache keeps the result per document
 * object, so its validation runs once per schema). Validation, the query limits, identity and
 * everything after treat it as any other document. An unknown id is PERSISTED_QUERY_NOT_FOUND,
 * the code Apollo's APQ link answers by sending the text: the gateway never registers a document,
 * so the list stays the frontend's own. With no manifest at all, any id is
 * PERSISTED_QUERY_NOT_SUPPORTED (200), after which APQ clients stop sending hashes.
 *
 * With TRUSTED_DOCUMENTS_ONLY, whoever `queryTextRefusal` refuses gets that refusal before the
 * text is parsed or looked at: a crafted or expensive document costs the gateway nothing.
 *
 * Built on @graphql-yoga/plugin-persisted-operations (the id from the request, the document put
 * in place of parsing, the refusals as hooks); this file says which ids, documents and errors.
 */
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { Plugin } from 'graphql-yoga';
import type { TrustedDocument } from '../config';
import { gatewayError, type GatewayError } from '../errors';
import { documentIdOf } from './document-id';

export interface TrustedDocumentsOptions {
  /** The documents by SHA-256 (lowercase hex), parsed at start. */
  readonly documents: ReadonlyMap<string, TrustedDocument>;
  /**
   * TRUSTED_DOCUMENTS_ONLY: the refusal a request sending a query text gets, or undefined when it
   * may send one (decided from its headers alone). Without it, anyone may send query texts.
   */
  readonly queryTextRefusal?: (request: Request) => GatewayError | undefined;
  /**
   * Requests left as they came: the drop-in front's, which are the upstream's own requests and
   * get the upstream's answers (the upstream knows no document ids).
   */
  readonly exempt?: (request: Request) => boolean;
}

export function useTrustedDocuments({ documents, queryTextRefusal, exempt }: TrustedDocumentsOptions): Plugin {
  const persisted = usePersistedOperations<Record<string, unknown>>({
    getPersistedOperation: (id) => documents.get(id)?.document ?? null,
    extractPersistedOperationId: documentIdOf,
    // The refusal is thrown as it is: an unknown API key is UNAUTHENTICATED, not PERSISTED_QUERY_ONLY.
    allowArbitraryOperations: queryTextRefusal
      ? (request) => {
          const refusal = queryTextRefusal(request);
          if (refusal) throw refusal;
          return true;
        }
      : true,
    customErrors: {
      // Without a manifest no id can ever be known: PERSISTED_QUERY_NOT_SUPPORTED tells APQ clients
      // to send texts from now on, instead of a hash and then the text for every document.
      notFound: () => gatewayError(documents.size === 0 ? 'PERSISTED_QUERY_NOT_SUPPORTED' : 'PERSISTED_QUERY_NOT_FOUND'),
      persistedQueryOnly: () => gatewayError('PERSISTED_QUERY_ONLY'),
      // Neither a query nor a document id (or an id that is not a string).
      keyNotFound: () => gatewayError('BAD_REQUEST', 'Send a query, or the documentId of a trusted document.'),
    },
  });
  return {
    onParams(payload) {
      if (exempt?.(payload.request)) return;
      return persisted.onParams?.(payload);
    },
    onParse: persisted.onParse,
  };
}
