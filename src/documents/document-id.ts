/**
 * The trusted document a request names: `documentId` (`"sha256:<hex>"` or `"<hex>"`, as the
 * GraphQL over HTTP persisted-documents appendix), in a POST body or a GET query string, or APQ's
 * `extensions.persistedQuery.sha256Hash`. Yoga's GET parser keeps only the four standard
 * parameters, so a GET's `documentId` is read from its URL.
 */
import { defaultExtractPersistedOperationId } from '@graphql-yoga/plugin-persisted-operations';
import type { GraphQLParams } from 'graphql-yoga';

const PREFIX = 'sha256:';

/** Hex digests compare case-insensitively; the manifest's ids are lowercase. */
export function normalized(id: string): string {
  return (id.startsWith(PREFIX) ? id.slice(PREFIX.length) : id).toLowerCase();
}

/**
 * The id the request names (any string: an unknown one is PERSISTED_QUERY_NOT_FOUND), or null
 * when it names none or names one with something other than a string.
 */
export function documentIdOf(params: GraphQLParams, request: Request): string | null {
  const named: unknown = 'documentId' in params ? params.documentId : request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : null;
  if (typeof named === 'string') return normalized(named);
  if (named !== null && named !== undefined) return null;
  const hash = defaultExtractPersistedOperationId(params, request, {});
  return hash === null ? null : normalized(hash);
}
