/**
 * The drop-in front answers a document the upstream's GraphQL server refuses (a parse or
 * validation error, variables that do not fit their types) as the upstream does: 200 and
 * `{"errors":[{"message","locations"}]}`, without `extensions` (graphql-ruby's shape, which the
 * emulator copies). Clients written for the upstream read `locations`; the gateway's own shape
 * (400, `extensions.code`, no locations) is /graphql's. Placed before the error mapping, which
 * would replace these errors with its own; the front's own refusals (its limits, a GatewayError)
 * keep the gateway's shape. The credential headers go on in useDropInFront, as devise echoes them.
 */
import { GraphQLError, Kind, type GraphQLFormattedError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { JSON_HEADERS } from '../errors/json-response';
import { upstreamStyleResponse } from './pass-through';

/** The codes Yoga gives the errors of a document that does not parse or validate. */
const DOCUMENT_ERRORS: ReadonlySet<unknown> = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED']);

/** By its code: the front's limits refuse with theirs (QUERY_TOO_COMPLEX), which keep the gateway's shape. */
function refusedDocument(error: unknown): error is GraphQLError {
  if (!(error instanceof GraphQLError)) return false;
  // graphql-js's variable coercion errors point at the variable's definition.
  return DOCUMENT_ERRORS.has(error.extensions.code) || Boolean(error.nodes?.some((node) => node.kind === Kind.VARIABLE_DEFINITION));
}

function asUpstreamWould(error: GraphQLError): GraphQLFormattedError {
  const { message, locations } = error.toJSON();
  return locations ? { message, locations } : { message };
}

export function useUpstreamErrorAnswers(): Plugin {
  return {
    onResultProcess(payload) {
      const { result } = payload;
      // No batches on the front (frontJsonParser), and no subscriptions upstream.
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      const { errors, data } = result as { errors?: readonly unknown[]; data?: unknown };
      // Errors before execution only (no `data`), and all of them the document's.
      if (!errors?.length || data !== undefined || !errors.every(refusedDocument)) return;
      const body = JSON.stringify({ errors: errors.map(asUpstreamWould) });
      payload.setResultProcessor(() => upstreamStyleResponse(200, body, JSON_HEADERS), 'application/json');
    },
  };
}
