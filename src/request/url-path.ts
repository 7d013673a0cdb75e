/**
 * The path of a Request's URL. `request.url` is already a serialised (normalised) URL: its path is
 * what `new URL(url).pathname` gives, without parsing the whole URL again on every request.
 */
export function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  const fragment = url.indexOf('#', start);
  const end = query < 0 ? (fragment < 0 ? url.length : fragment) : fragment < 0 ? query : Math.min(query, fragment);
  return url.slice(start, end);
}
