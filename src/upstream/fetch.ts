/**
 * Every upstream HTTP call goes through here: a hard timeout (UPSTREAM_TIMEOUT_MS), retries of
 * calls safe to repeat and a circuit per environment (resilience.ts), and failures turned into
 * the contract's codes before anything can echo an upstream URL or body.
 * Refused, timed out or 5xx: UPSTREAM_UNAVAILABLE. The caller decides what a 401 means. A timeout
 * counts toward the circuit only once a probe of the upstream has failed too (circuit.ts).
 *
 * The call goes out through undici's `request` (Node's HTTP client, the same connection pool as
 * the global `fetch`) and its body is read whole before the answer is handed back as a WHATWG
 * `Response`: every caller reads it whole anyway (Mesh parses the JSON), the timeout then covers
 * the body too, and it costs far less CPU than `fetch` (bench/README.md has the figures).
 * What `fetch` did besides is kept: a User-Agent, `Accept: *\/*`, compressed answers asked for
 * and decoded (gzip, deflate, br), redirects handed back rather than followed.
 */
import { setMaxListeners } from 'node:events';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate, inflateRaw, type ZlibOptions } from 'node:zlib';
import { request, type Dispatcher } from 'undici';
import type { Environment } from '../environment';
import { gatewayError, type GatewayError } from '../errors';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics, UpstreamCallResult } from '../observability/metrics';
import { createResilience, retryAfterMs, type UpstreamResilience } from './resilience';

export interface UpstreamCall {
  readonly environment: Environment;
  /** A bounded label (the upstream operation), for logs and metrics. */
  readonly operation: string;
  /**
   * `safe`: the call may be made again after no answer or a 502/503/504 (a query, a sign-in).
   * Only a caller that knows the operation says so; anything else (a mutation, a sign-out, a
   * body the caller did not read) is made once.
   */
  readonly retry?: 'safe';
}

export type UpstreamFetch = (url: string, init: RequestInit, call: UpstreamCall) => Promise<Response>;

export interface UpstreamFetchOptions {
  readonly timeoutMs: number;
  /** The most bytes of one answer read (default MAX_ANSWER_BYTES); more is UPSTREAM_ERROR. */
  readonly maxAnswerBytes?: number;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  /** Retries and the circuit per environment (resilience.ts); without it each call is made once. */
  readonly resilience?: UpstreamResilience;
  /** The egress proxy's dispatcher (egress.ts); without it, undici's global one. */
  readonly dispatcher?: Dispatcher;
}

/** Statuses whose answers carry no body (the Response constructor refuses one for them). */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** Sent unless the caller names its own (as `fetch` does). */
const DEFAULT_REQUEST_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': 'statement-gateway',
  accept: '*/*',
  'accept-encoding': 'gzip, deflate, br',
};

/**
 * The most bytes of one upstream answer the gateway reads, as sent and decoded: a compressed
 * answer cannot balloon, and no answer can hold the process's memory hostage. Five hundred PDFs
 * (the most one request may ask for, protection/pdf-answer-limit.ts) of a few tens of KiB each,
 * base-64 in JSON, fit with room to spare; a larger answer is UPSTREAM_ERROR.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** An answer over MAX_ANSWER_BYTES (or the caller's bound): not read further. */
class AnswerTooLarge extends Error {}
type Decode = (bytes: Buffer, options: ZlibOptions) => Promise<Buffer>;
const gunzipAsync = promisify(gunzip) as Decode;
const inflateAsync = promisify(inflate) as Decode;
const inflateRawAsync = promisify(inflateRaw) as Decode;
const brotliAsync = promisify(brotliDecompress) as Decode;
const DECODERS: Readonly<Record<string, Decode>> = {
  gzip: gunzipAsync,
  'x-gzip': gunzipAsync,
  // HTTP's deflate is zlib-wrapped, but some servers send it raw (as browsers and fetch accept).
  deflate: (bytes, options) => inflateAsync(bytes, options).catch(() => inflateRawAsync(bytes, options)),
  br: brotliAsync,
};

/** The body as sent, decoded as `fetch` would (content-encoding: gzip, deflate, br). */
async function decoded(bytes: ArrayBuffer, headers: Headers, maxBytes: number): Promise<ArrayBuffer> {
  const encoding = headers.get('content-encoding')?.trim().toLowerCase();
  if (!encoding || encoding === 'identity' || bytes.byteLength === 0) return bytes;
  const decode = DECODERS[encoding];
  if (!decode) throw new Error(`unsupported upstream content-encoding ${encoding}`);
  let body: Buffer;
  try {
    body = await decode(Buffer.from(bytes), { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw new AnswerTooLarge();
    throw error;
  }
  headers.delete('content-encoding');
  headers.delete('content-length');
  return new Uint8Array(body).buffer;
}

function headerRecord(headers: HeadersInit | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (!headers) return record;
  const entries: Iterable<readonly [string, string]> =
    headers instanceof Headers ? headers.entries() : Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [name, value] of entries) record[name.toLowerCase()] = value;
  return record;
}

function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof URLSearchParams) return body.toString();
  throw new TypeError('Unsupported upstream request body');
}

/** An answer whose body was read whole: `bodyText` reads its bytes without the Response's stream. */
class ReadResponse extends Response {
  constructor(
    readonly wholeBody: ArrayBuffer,
    init: ResponseInit,
  ) {
    super(wholeBody, init);
  }
}

/** An upstream answer's body as text (as `response.text()`, without a stream for bytes already read). */
export function bodyText(response: Response): Promise<string> {
  return response instanceof ReadResponse ? Promise.resolve(Buffer.from(response.wholeBody).toString('utf8')) : response.text();
}

type AnswerBody = Awaited<ReturnType<typeof request>>['body'];

/**
 * The answer's bytes, at most `maxBytes`: an answer that declares more is not read at all, one
 * without a length (chunked) is counted as it arrives and dropped once over.
 */
async function readBounded(body: AnswerBody, declared: string | string[] | undefined, maxBytes: number): Promise<ArrayBuffer> {
  if (typeof declared === 'string') {
    if (Number(declared) > maxBytes) {
      body.destroy();
      throw new AnswerTooLarge();
    }
    return body.arrayBuffer();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      body.destroy();
      throw new AnswerTooLarge();
    }
    chunks.push(chunk);
  }
  const whole = Buffer.concat(chunks, size);
  return whole.buffer.slice(whole.byteOffset, whole.byteOffset + size);
}

/** One upstream call with undici, answered as a Response whose body was read whole (at most `maxBytes`). */
async function undiciFetch(url: string, init: RequestInit, maxBytes: number, dispatcher: Dispatcher | undefined): Promise<Response> {
  const body = requestBody(init.body);
  const answer = await request(url, {
    method: (init.method ?? 'GET').toUpperCase() as 'GET',
    headers: { ...DEFAULT_REQUEST_HEADERS, ...headerRecord(init.headers) },
    ...(body === undefined ? {} : { body }),
    ...(init.signal ? { signal: init.signal } : {}),
    ...(dispatcher ? { dispatcher } : {}),
  });
  const bytes = await readBounded(answer.body, answer.headers['content-length'], maxBytes);
  const headers = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  // The Response constructor only takes 200-599; anything else is not an answer HTTP allows here.
  if (answer.statusCode < 200 || answer.statusCode > 599) throw new Error(`unexpected upstream status ${answer.statusCode}`);
  if (NULL_BODY_STATUSES.has(answer.statusCode)) return new Response(null, { status: answer.statusCode, headers });
  const answerBody = await decoded(bytes, headers, maxBytes);
  return new ReadResponse(answerBody, { status: answer.statusCode, headers });
}

/**
 * One attempt's end: an answer, or a failure the circuit counts (`upstream`), counts only if a
 * probe fails too (`timeout`), or does not count (`caller`, `answered`).
 */
type Attempt =
  | { readonly response: Response }
  | { readonly error: GatewayError; readonly blame: 'upstream' | 'timeout' | 'suspect' | 'caller' | 'answered'; readonly retryable: boolean; readonly retryAfterMs?: number };

/** Answers that say "try again" without having done anything (a 500 may have run the operation). */
const RETRYABLE_STATUSES = new Set([502, 503, 504]);

export function createUpstreamFetch(options: UpstreamFetchOptions): UpstreamFetch {
  const resilience = options.resilience ?? createResilience({ retries: 0, circuitFailures: Number.POSITIVE_INFINITY, circuitCooldownMs: 0, metrics: options.metrics, upstreamUp: () => Promise.resolve(false) });
  return async (url, init, call) => {
    // An open circuit answers before anything else: no timer, no socket.
    const admission = resilience.admit(call.environment);
    // The caller's signal and the timeout, combined by hand and released when the call ends. Not
    // AbortSignal.any: on Node 20 it adds a WeakRef to each source signal's dependants that is never
    // removed, and Mesh's HTTP executor hands over the same executor-lifetime signal on every call
    // (the soak's heap grew with them: bench/README.md). Nor
    // AbortSignal.timeout, whose timer outlives the call by UPSTREAM_TIMEOUT_MS.
    // The timeout covers the whole call, its retries and their waits included.
    const controller = new AbortController();
    let timedOut = false;
    const deadline = performance.now() + options.timeoutMs;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('The upstream did not answer in time', 'TimeoutError'));
    }, options.timeoutMs);
    const callerSignal = init.signal ?? undefined;
    const onCallerAbort = () => controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) onCallerAbort();
    else if (callerSignal) {
      // One listener per call in flight, each removed when its call ends: not a leak, so no
      // MaxListenersExceededWarning past ten concurrent calls on the executor's shared signal.
      setMaxListeners(0, callerSignal);
      callerSignal.addEventListener('abort', onCallerAbort, { once: true });
    }
    const release = () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    };

    const attempt = async (): Promise<Attempt> => {
      const started = performance.now();
      const observe = (outcome: UpstreamCallResult) => options.metrics.upstreamRequest(call.environment, call.operation, outcome, (performance.now() - started) / 1000);
      let response: Response;
      try {
        // The whole answer is read inside (undiciFetch), so the timeout covers the body as well.
        response = await undiciFetch(url, { ...init, signal: controller.signal }, options.maxAnswerBytes ?? MAX_ANSWER_BYTES, options.dispatcher);
      } catch (error) {
        if (error instanceof AnswerTooLarge) {
          observe('error');
          options.log.upstreamFailed({ ...call, reason: 'too-large' });
          return { error: gatewayError('UPSTREAM_ERROR'), blame: 'answered', retryable: false };
        }
        // The caller went away (its request was aborted): not the upstream's failure, not measured.
        const callerGone = !timedOut && controller.signal.aborted;
        if (!callerGone) observe(timedOut ? 'timeout' : 'error');
        // A client that went away is no upstream failure: no warning for the on-call engineer.
        if (callerGone) options.log.upstreamAbandoned(call);
        else options.log.upstreamFailed({ ...call, reason: timedOut ? 'timeout' : 'refused' });
        return { error: gatewayError('UPSTREAM_UNAVAILABLE', undefined, { cause: error }), blame: callerGone ? 'caller' : timedOut ? 'timeout' : 'upstream', retryable: !timedOut && !callerGone };
      }
      if (response.status >= 500) {
        observe('error');
        await response.body?.cancel().catch(() => undefined);
        options.log.upstreamFailed({ ...call, reason: 'status', status: response.status });
        const wait = retryAfterMs(response.headers.get('retry-after'), Date.now());
        // A 500 may be one caller's input crashing one request: judged as a timeout is (circuit.ts).
        const blame = RETRYABLE_STATUSES.has(response.status) ? 'upstream' : 'suspect';
        return { error: gatewayError('UPSTREAM_UNAVAILABLE'), blame, retryable: RETRYABLE_STATUSES.has(response.status), ...(wait === undefined ? {} : { retryAfterMs: wait }) };
      }
      observe('ok');
      return { response };
    };

    try {
      for (let retry = 0; ; retry++) {
        const outcome = await attempt();
        if (retry > 0) resilience.retried(call.environment, 'response' in outcome ? 'ok' : 'error');
        if ('response' in outcome) {
          admission.succeeded();
          return outcome.response;
        }
        const delay = call.retry === 'safe' && outcome.retryable
          ? resilience.retryDelay(call.environment, retry + 1, outcome.retryAfterMs, deadline - performance.now())
          : undefined;
        if (delay === undefined) {
          if (outcome.blame === 'upstream') admission.failed();
          else if (outcome.blame === 'timeout' || outcome.blame === 'suspect') admission.timedOut();
          else if (outcome.blame === 'answered') admission.succeeded();
          else admission.released();
          throw outcome.error;
        }
        await pause(delay, controller.signal);
      }
    } finally {
      release();
    }
  };
}

/** Waits `ms`, or less when `signal` aborts (the next attempt then fails at once as timed out or abandoned). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
