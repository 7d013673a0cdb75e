/**
 * The gateway's HTTP surface. Yoga would serve GraphQL on any path ending in `/graphql` (including
 * `/v2/graphql` and its `/sandbox/`, `/production/` forms, which the contract reserves for the
 * drop-in front) and answer an unsupported
 * content type with an empty 415: both are answered here, as JSON errors.
 */
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from '../errors';

export interface RoutesOptions {
  /** The first is the gateway's own endpoint, named in the 404 message. */
  readonly graphqlPaths?: readonly string[];
}

/**
 * GraphQL over POST: JSON only (form and multipart bodies are what cross-site forms send), in the
 * two media types Yoga's JSON parser reads.
 */
const JSON_TYPES = ['application/json', 'application/graphql+json'];

/**
 * Written as Yoga's parser matches it (lower case, parameters right after a `;`): any other
 * spelling, `Application/JSON` for one, would pass here and get Yoga's empty 415.
 */
export function isJsonType(contentType: string | null): boolean {
  return JSON_TYPES.some((type) => contentType === type || contentType?.startsWith(`${type};`));
}

export function useRoutes({ graphqlPaths = ['/graphql'] }: RoutesOptions = {}): Plugin {
  const graphqlPath = graphqlPaths[0] ?? '/graphql';
  return {
    onRequest(payload) {
      const { request, url } = payload;
      // `/graphql/`, as a browser's address bar or a copied link may have it: to GraphiQL or the
      // endpoint itself (GET only; what a script POSTs there stays a 404, so its bug shows).
      if (url.pathname === `${graphqlPath}/` && (request.method === 'GET' || request.method === 'HEAD')) {
        payload.endResponse(new Response(null, { status: 308, headers: { location: `${graphqlPath}${url.search}` } }));
        return;
      }
      if (!graphqlPaths.includes(url.pathname)) {
        payload.endResponse(errorResponse(404, 'BAD_REQUEST', `Not found. GraphQL is served on ${graphqlPath}.`));
        return;
      }
      if (request.method === 'POST') {
        if (!isJsonType(request.headers.get('content-type'))) {
          payload.endResponse(errorResponse(415, 'BAD_REQUEST', 'Send GraphQL requests as application/json.'));
        }
        return;
      }
      if (request.method !== 'GET' && request.method !== 'OPTIONS') {
        payload.endResponse(errorResponse(405, 'BAD_REQUEST', 'GraphQL is served over GET (queries) and POST.', { headers: { allow: 'GET, POST' } }));
      }
    },
  };
}

