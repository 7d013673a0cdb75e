/**
 * Answers the drop-in front gives in the upstream's place (a wrong method, a refused limit, a body
 * over the size limit, malformed JSON ...) framed as the upstream's HTTP server frames its own: the
 * standard reason phrase and a Content-Length. A `Response` built without them goes out chunked
 * with an empty reason phrase (`HTTP/1.1 401 `), which strict clients and the proxies in front of
 * them read as a different answer from the upstream's.
 *
 * Malformed JSON gets the upstream's own answer (Rails' parameter parser, which the emulator
 * copies), for the sign-in and GraphQL alike: clients written for the upstream read that shape. So
 * does a method the upstream does not route on a front path (GET /v2/graphql, OPTIONS, ...): Rails'
 * 404, not a 405 the upstream never sends. And so does a query text that does not parse, which the
 * front never sends upstream: devise's 401 without a credential, the syntax error with one.
 */
import { STATUS_CODES } from 'node:http';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { GraphQLParams } from 'graphql-yoga';
import { errorResponse, GatewayError, gatewayError } from '../errors';
import { JSON_HEADERS } from '../errors/json-response';
import type { UpstreamCredential } from '../upstream/credential';
import { upstreamStyleResponse } from './pass-through';

/** Credential headers echoed as devise does when no upstream call answered (verified credentials only). */
export function echoedCredentialHeaders(credential: UpstreamCredential): Record<string, string> {
  const values: Record<string, string> = { 'access-token': credential.accessToken, 'token-type': 'Bearer', client: credential.client };
  if (credential.expiry !== undefined) values.expiry = String(credential.expiry);
  values.uid = credential.uid;
  return { ...values, authorization: `Bearer ${Buffer.from(JSON.stringify(values)).toString('base64')}` };
}

/** A failure of the front itself (never the upstream's answer), as the contract's JSON error. */
export function failureResponse(error: unknown): Response {
  const known = error instanceof GatewayError ? error : gatewayError('UPSTREAM_ERROR');
  const http = known.extensions.http as { status: number; headers?: Record<string, string> };
  return errorResponse(http.status, known.code, known.message, { headers: http.headers ?? {} });
}

/** The upstream's body for a JSON body it cannot parse (status 400). */
export const MALFORMED_JSON_BODY = { status: 400, error: 'Bad Request', errors: ['There was a problem in the JSON you submitted'] } as const;

export function malformedJsonAnswer(): Response {
  return upstreamStyleResponse(400, JSON.stringify(MALFORMED_JSON_BODY), JSON_HEADERS);
}

/** The upstream's body for a request body over its limit (status 413, then the connection closes). */
export const TOO_LARGE_BODY = { status: 413, error: 'Payload Too Large', errors: ['The request body is too large'] } as const;

/** The upstream's answer to a body over its limit, for one the front refused after reading it (readBody). */
export function tooLargeAnswer(): Response {
  return upstreamStyleResponse(413, JSON.stringify(TOO_LARGE_BODY), { ...JSON_HEADERS, connection: 'close' });
}

/**
 * graphql-ruby's answer (200) to a body without a query text: none, an empty one, one that is not
 * a string, or a body that is not a JSON object (`[]`: Rails keeps an array under `_json`).
 */
export const NO_QUERY_BODY = { errors: [{ message: 'No query string was present' }] } as const;

export function noQueryAnswer(): Response {
  return upstreamStyleResponse(200, JSON.stringify(NO_QUERY_BODY), JSON_HEADERS);
}

/** The upstream's body for a path and method it does not route (status 404). */
export const NOT_FOUND_BODY = { status: 404, error: 'Not Found' } as const;

export function notFoundAnswer(): Response {
  return upstreamStyleResponse(404, JSON.stringify(NOT_FOUND_BODY), JSON_HEADERS);
}

/** devise's failure message (`devise.failure.unauthenticated`): the upstream's 401 for GraphQL it must authenticate and cannot. */
export const SIGN_IN_REQUIRED_BODY = { errors: ['You need to sign in or sign up before continuing.'] } as const;

/** The upstream's answer to GraphQL without a credential that needs one (a document it cannot parse needs one). */
export function signInRequiredAnswer(): Response {
  return upstreamStyleResponse(401, JSON.stringify(SIGN_IN_REQUIRED_BODY), JSON_HEADERS);
}

/**
 * The upstream's answer (200) to a query text it cannot parse, for a credential it accepts: the
 * syntax error with its locations, as graphql-js words it (the emulator's parser; graphql-js
 * throws a RangeError rather than a GraphQLError for a document nested past the stack), with
 * `credentialHeaders` (devise's, echoed or rotated).
 */
export function parseErrorAnswer(error: unknown, credentialHeaders: Readonly<Record<string, string>>): Response {
  const formatted: GraphQLFormattedError = error instanceof GraphQLError ? error.toJSON() : { message: 'The document nests too deeply to be parsed' };
  return upstreamStyleResponse(200, JSON.stringify({ errors: [formatted] }), { ...JSON_HEADERS, ...credentialHeaders });
}

/**
 * Yoga's request parser for the front's GraphQL that runs through the gateway (a verified
 * credential; useRoutes let JSON bodies only through): Yoga's own answers malformed JSON, and a
 * body without a query, with the gateway's error shapes (400), this one with the upstream's. A
 * batch (`[...]`) is no query to the upstream either: it never reaches Yoga's batching.
 */
export async function frontJsonParser(request: Request): Promise<GraphQLParams | Response> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await request.text()) as unknown;
  } catch {
    return malformedJsonAnswer();
  }
  const query = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as { query?: unknown }).query : undefined;
  if (typeof query !== 'string' || query === '') return noQueryAnswer();
  return parsed as GraphQLParams;
}

/**
 * `response` with the standard reason phrase and a Content-Length. An answer that already has both
 * (the upstream's, passed through) is returned as it is; one without a length is read whole: the
 * front's own answers are small JSON errors, and Yoga's results carry their length.
 */
export async function framedAsUpstream(response: Response): Promise<Response> {
  const reason = STATUS_CODES[response.status] ?? '';
  const length = response.headers.get('content-length');
  if (length !== null && response.statusText === reason) return response;
  if (length !== null) return new Response(response.body, { status: response.status, statusText: reason, headers: response.headers });
  return upstreamStyleResponse(response.status, await response.arrayBuffer(), response.headers);
}
