/**
 * The path of a Request's URL, without parsing the whole URL again on every request. A client's
 * request has the URL whatwg-node built, `scheme://<Host><target>` as sent (not re-serialised):
 * the edge let through only a Host and a target (src/request/request-target.ts) for which this is
 * the target's path and what `new URL(url).pathname` gives. A URL the gateway builds itself is
 * serialised already.
 */
export function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  const fragment = url.indexOf('#', start);
  const end = query < 0 ? (fragment < 0 ? url.length : fragment) : fragment < 0 ? query : Math.min(query, fragment);
  return url.slice(start, end);
}
