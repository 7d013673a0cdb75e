/**
 * What a request reaches is decided by its request target alone, read here once: the edge refuses
 * what this refuses (src/http/edge.ts), and the choice of product, the drop-in front's route and
 * environment and the SERVER span's route all read the path this accepted.
 *
 * Why so strict: a path passes readers that disagree. An ingress rule or proxy matches it as
 * written; the WHATWG URL parser, which builds the URL Yoga routes by, resolves `.` and `..` (and
 * their `%2e` forms) and reads `\` as `/`; a server that decodes `%2F` sees two segments where the
 * rule saw one; `//` is an empty segment to one reader and nothing to another. A path two readers
 * could read differently is refused, so that `deny /metrics` at the ingress or the front's
 * `/production` prefix means what it says. What is accepted is a path every reader reads alike: the
 * pathname of `new URL(origin + target)` is the target's path, byte for byte.
 *
 * The Host header takes no part: whatwg-node builds a request's URL as `scheme://<Host><target>`,
 * so a Host of `x\metrics?` made `/graphql` a request for /metrics. A Host is accepted only as
 * `host[:port]` (RFC 3986: a reg-name, IPv4 or [IPv6] literal; a numeric port) that the URL parser
 * takes as a host: nothing in it can end the authority and start a path or a query.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface RequestTarget {
  /** The path, exactly as sent (origin-form, checked). */
  readonly path: string;
  /** The query with its `?`, or ''. Never routes anything. */
  readonly search: string;
}

/** Why a request is refused: the 400's message. */
export interface TargetRefusal {
  readonly refusal: string;
}

/** RFC 3986 segments of pchars (unreserved, sub-delims, `:`, `@`, `%`): nothing the URL parser re-encodes or reads as a delimiter. */
const PATH = /^(?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@%]*)+$/;
const DOT_SEGMENT = /\/(?:\.|%2e){1,2}(?=\/|$)/i;
const ENCODED_SEPARATOR = /%2f|%5c/i;
/** An RFC 3986 host (IP literal without a zone, or IPv4 / reg-name) and an optional numeric port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::[0-9]{1,5})?$/;

/** The path and query of an origin-form target, or why it is refused. */
export function readRequestTarget(target: string | undefined): RequestTarget | TargetRefusal {
  if (!target?.startsWith('/')) return { refusal: 'The request target must be a path such as /graphql (origin-form), not an absolute URL or `*`.' };
  if (target.includes('#')) return { refusal: 'The request target has a fragment (#): a fragment is never sent.' };
  const query = target.indexOf('?');
  const path = query < 0 ? target : target.slice(0, query);
  if (path.includes('\\')) return { refusal: 'The path has a backslash.' };
  if (path.includes('//')) return { refusal: 'The path has an empty segment (//).' };
  if (DOT_SEGMENT.test(path)) return { refusal: 'The path has a `.` or `..` segment (or its %2e form): send the path it stands for.' };
  if (ENCODED_SEPARATOR.test(path)) return { refusal: 'The path has an encoded slash or backslash (%2F, %5C).' };
  if (!PATH.test(path)) return { refusal: 'The path has a character a URL path may not hold unencoded.' };
  return { path, search: query < 0 ? '' : target.slice(query) };
}

/** Why a request's Host header is refused, or undefined. HTTP/1.0 may send none: the target alone then decides. */
export function hostRefusal(headers: IncomingHttpHeaders, rawHeaders: readonly string[]): string | undefined {
  const host = headers.host;
  if (host === undefined) return undefined;
  // Node keeps the first of several; a proxy in front may have routed by another.
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) if (rawHeaders[index]?.toLowerCase() === 'host') count++;
  if (count > 1) return 'The request has more than one Host header.';
  // The second test: what the pattern admits but no URL can hold (`a%2fb`, `xn--a`, port 99999).
  if (!HOST.test(host) || !URL.canParse(`http://${host}`)) return 'The Host header must be host[:port].';
  return undefined;
}

/** The request's target, or why it is refused: its Host first, then its target. */
export function readRequest(request: { readonly url?: string | undefined; readonly headers: IncomingHttpHeaders; readonly rawHeaders: readonly string[] }): RequestTarget | TargetRefusal {
  const refusal = hostRefusal(request.headers, request.rawHeaders);
  return refusal === undefined ? readRequestTarget(request.url) : { refusal };
}
