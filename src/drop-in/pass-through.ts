/**
 * A front request handed to the upstream as it came, and the upstream's answer handed back as it
 * was sent: status line, body bytes, content type and devise's credential headers (never a cookie,
 * never a header naming the upstream's own infrastructure).
 *
 * The answer keeps its reason phrase and a Content-Length, as the upstream sends them: the upstream
 * client (undici's `request`) does not report the reason phrase, and the upstream (a Rails server,
 * the emulator a Node one) writes the standard phrase of each status, so that phrase is written; a
 * `Response` built without a length would otherwise go out chunked with an empty reason phrase,
 * which strict clients and proxies in front of them treat as a different answer.
 */
import { STATUS_CODES } from 'node:http';
import { deviseAuthorization } from '../upstream/credential';
import { type UpstreamTarget } from '../upstream/target';
import { gatewayError } from '../errors';
import type { UpstreamFetch } from '../upstream/fetch';

/** devise_token_auth's credential headers, in the order it sends them. */
export const CREDENTIAL_RESPONSE_HEADERS = ['access-token', 'token-type', 'client', 'expiry', 'uid', 'authorization'] as const;
/** Request headers passed to the upstream on pass-through calls (never a cookie). */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'access-token', 'token-type', 'client', 'uid', 'expiry', 'authorization'];

/** The credential headers of an upstream answer, blank batch-window values included. */
export function credentialHeadersOf(headers: Headers): Record<string, string> | undefined {
  if (headers.get('access-token') === null) return undefined;
  const picked: Record<string, string> = {};
  for (const name of CREDENTIAL_RESPONSE_HEADERS) {
    const value = headers.get(name);
    if (value !== null) picked[name] = value;
  }
  return picked;
}

/** An answer as the upstream's HTTP server writes it: its reason phrase and a Content-Length. */
export function upstreamStyleResponse(status: number, body: ArrayBuffer | string, headers: Headers | Record<string, string>): Response {
  const bytes = typeof body === 'string' ? Buffer.from(body) : new Uint8Array(body);
  const out = new Headers(headers);
  out.set('content-length', String(bytes.byteLength));
  return new Response(bytes, { status, statusText: STATUS_CODES[status] ?? '', headers: out });
}

/** The request's body (undefined when empty), refused with PAYLOAD_TOO_LARGE over `limit` bytes. */
export async function readBody(request: Request, limit: number): Promise<ArrayBuffer | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw gatewayError('PAYLOAD_TOO_LARGE');
  if (!request.body) return undefined;
  const body = await request.arrayBuffer();
  if (body.byteLength > limit) throw gatewayError('PAYLOAD_TOO_LARGE');
  return body.byteLength ? body : undefined;
}

export interface PassThroughCall {
  readonly upstreamFetch: UpstreamFetch;
  readonly target: UpstreamTarget;
  /** The upstream's own path (`/v2/...`, without the front's environment prefix). */
  readonly path: string;
  /** A bounded label for logs and metrics. */
  readonly operation: string;
  /** `safe` when the front read the request as one safe to repeat (a sign-in, a query). */
  readonly retry?: 'safe';
}

export interface PassedThrough {
  readonly response: Response;
  /** The request headers sent upstream. */
  readonly sent: Headers;
}

/**
 * Passes a request (its headers, and its body as read by readBody, or one the front rebuilt with
 * its `contentType`) to the upstream and its answer back.
 */
export async function passThrough(request: Request, body: ArrayBuffer | undefined, call: PassThroughCall, contentType?: string): Promise<PassedThrough> {
  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    // devise's own Authorization (base-64 JSON) only: never, say, a service account's API key.
    if (value !== null && (name !== 'authorization' || deviseAuthorization(value))) headers.set(name, value);
  }
  if (contentType) headers.set('content-type', contentType);
  const { target } = call;
  const answer = await call.upstreamFetch(`${target.baseUrl}${call.path}`, { method: request.method, headers, ...(body ? { body } : {}) }, { environment: target.environment, operation: call.operation, ...(call.retry ? { retry: call.retry } : {}) });
  const bytes = await answer.arrayBuffer();
  const out = new Headers({ 'cache-control': 'no-store' });
  const type = answer.headers.get('content-type');
  if (type) out.set('content-type', type);
  for (const [name, value] of Object.entries(credentialHeadersOf(answer.headers) ?? {})) out.set(name, value);
  return { response: upstreamStyleResponse(answer.status, bytes, out), sent: headers };
}
