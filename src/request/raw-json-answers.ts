/**
 * Answers written as bytes the gateway already holds (the upstream's answer on the fast path, a
 * definitions answer serialised once) instead of serialising the result again, through Yoga's
 * public result-processor hook: a plugin keeps the bytes by result object in its own WeakMap
 * (`rawJsonAnswers()` per plugin instance), and its onResultProcess sets a processor with
 * setResultProcessor when Yoga chose its JSON processor (processRegularResult, exported by Yoga)
 * and the result is still the one kept, unchanged. Every other hook (error mapping, access log,
 * metrics, cookies, tracing) runs as for any answer; a result another plugin replaced or extended,
 * or a streaming Accept (SSE, multipart), is serialised by Yoga as usual.
 */
import { processRegularResult, type Plugin } from 'graphql-yoga';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const JSON_TYPES = new Set(['application/json', 'application/*', '*/*']);

/**
 * Which of its two JSON media types Yoga's JSON processor answers a request with (setResultProcessor
 * takes the media type): the first entry of Accept (UTF-8 or no charset) that names one of them, a
 * wildcard naming application/json. Undefined where Accept reads otherwise: Yoga then serialises.
 */
export function jsonMediaTypeOf(request: Request): string | undefined {
  return jsonMediaTypeFor(request.headers.get('accept'));
}

/** The same, from the Accept header's value. */
export function jsonMediaTypeFor(accept: string | null | undefined): string | undefined {
  if (!accept) return 'application/json';
  for (const entry of accept.replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = entry.split(';');
    if (params.some((param) => param.startsWith('charset=') && param !== 'charset=utf-8')) continue;
    if (type === GRAPHQL_RESPONSE) return type;
    if (type !== undefined && JSON_TYPES.has(type)) return 'application/json';
  }
  return undefined;
}

/**
 * What Yoga's processRegularResult answers for a result without errors or `extensions.http`, as
 * these bytes: the one shape of a clean JSON answer (the hot path writes the same).
 */
export function jsonAnswer(fetchAPI: { readonly Response: typeof Response }, bytes: string, mediaType: string): Response {
  return new fetchAPI.Response(bytes, { status: 200, headers: { 'Content-Type': `${mediaType}; charset=utf-8` } });
}

export interface RawJsonAnswers {
  /** `result` is answered with `bytes`, its exact JSON, for as long as it is not changed. */
  keep(result: object, bytes: string): void;
  /** The hook that writes them (a plugin's `onResultProcess`). */
  readonly onResultProcess: NonNullable<Plugin['onResultProcess']>;
}

export function rawJsonAnswers(): RawJsonAnswers {
  /** The bytes and the result's own keys when kept (a key added in place since means other JSON). */
  const kept = new WeakMap<object, { readonly bytes: string; readonly keys: number }>();
  const bytesOf = (result: unknown): string | undefined => {
    if (typeof result !== 'object' || result === null) return undefined;
    const entry = kept.get(result);
    return entry && Object.keys(result).length === entry.keys ? entry.bytes : undefined;
  };
  return {
    keep(result, bytes) {
      kept.set(result, { bytes, keys: Object.keys(result).length });
    },
    onResultProcess(payload) {
      if (payload.resultProcessor !== processRegularResult || bytesOf(payload.result) === undefined) return;
      const mediaType = jsonMediaTypeOf(payload.request);
      if (!mediaType) return;
      payload.setResultProcessor((result, fetchAPI, accepted) => {
        // Read when Yoga writes: a later hook may have replaced the result.
        const bytes = bytesOf(result);
        if (bytes === undefined) return processRegularResult(result, fetchAPI, accepted);
        return jsonAnswer(fetchAPI, bytes, accepted);
      }, mediaType);
    },
  };
}
