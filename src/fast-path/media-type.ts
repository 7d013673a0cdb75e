/**
 * Which of its two JSON media types Yoga's regular result processor answers a request with, so
 * that the fast path, writing the upstream's bytes through Yoga's public setResultProcessor (which
 * takes the media type), answers with the Content-Type Yoga would. Yoga keeps the first entry of
 * Accept (in UTF-8 or no charset) that names one of them, a wildcard naming application/json; an
 * Accept this does not read as surely (none of the above) gets undefined, and Yoga then serialises
 * the result itself, as on Mesh's path.
 */
const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const JSON_TYPES = new Set(['application/json', 'application/*', '*/*']);

export function jsonMediaTypeOf(request: Request): string | undefined {
  const accept = request.headers.get('accept');
  if (!accept) return 'application/json';
  for (const entry of accept.replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = entry.split(';');
    if (params.some((param) => param.startsWith('charset=') && param !== 'charset=utf-8')) continue;
    if (type === GRAPHQL_RESPONSE) return type;
    if (type !== undefined && JSON_TYPES.has(type)) return 'application/json';
  }
  return undefined;
}
