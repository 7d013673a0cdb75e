/**
 * The drop-in front: the upstream's own endpoints on the gateway, for API clients written against
 * the upstream that only change their base URL (the sandbox, or production with
 * `X-Upstream-Environment: production`).
 *
 * - `POST /v2/auth/sign_in` and `DELETE /v2/auth/sign_out` are passed to the upstream and their
 *   answers back as they are (status, body, credential headers); only the failure of the upstream
 *   itself becomes the gateway's JSON error, without its URL.
 * - `POST /v2/graphql` with a credential in its headers runs through the gateway (caches, limits,
 *   metrics) as a `drop-in` identity; the credential headers of the upstream's answer go back to
 *   the client (echoed as devise would when a cache answered), and an upstream refusal (401) is
 *   the upstream's own answer. Without a credential in the headers (none, or devise's body
 *   parameters) the request is passed through as it is: the upstream alone decides.
 */
import type { Plugin } from 'graphql-yoga';
import { credentialFromHeaders, deviseAuthorization, type UpstreamCredential, type UpstreamTarget } from '../credentials/types';
import { GatewayError, gatewayError } from '../errors';
import { jsonResponse } from '../http/json-response';
import { stateOf, type GatewayContext } from '../plugins/context';
import type { GatewayRuntime } from '../runtime';
import { signInWithinLimits } from './sign-in-limits';

export const FRONT_GRAPHQL_PATH = '/v2/graphql';
const SIGN_IN_PATH = '/v2/auth/sign_in';
const SIGN_OUT_PATH = '/v2/auth/sign_out';

/** devise_token_auth's credential headers, in the order it sends them. */
export const CREDENTIAL_RESPONSE_HEADERS = ['access-token', 'token-type', 'client', 'expiry', 'uid', 'authorization'] as const;
/** Request headers passed to the upstream on pass-through calls (never a cookie). */
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'access-token', 'token-type', 'client', 'uid', 'expiry', 'authorization'];
/** Sign-in and sign-out bodies are a few hundred bytes; GraphQL bodies may hold hundreds of statements. */
const AUTH_BODY_LIMIT = 64 * 1024;

export interface DropInFrontOptions {
  readonly runtime: GatewayRuntime;
}

/** The environment a front request names (`X-Upstream-Environment`), sandbox by default. */
export function frontTarget(runtime: GatewayRuntime, request: Request): UpstreamTarget {
  return request.headers.get('x-upstream-environment')?.trim().toLowerCase() === 'production' ? runtime.upstreams.production : runtime.upstreams.sandbox;
}

/** Credential headers to send back: the upstream's own, or the presented credential echoed (a cache answered). */
export function echoedCredentialHeaders(credential: UpstreamCredential): Record<string, string> {
  const values: Record<string, string> = { 'access-token': credential.accessToken, 'token-type': 'Bearer', client: credential.client };
  if (credential.expiry !== undefined) values.expiry = String(credential.expiry);
  values.uid = credential.uid;
  return { ...values, authorization: `Bearer ${Buffer.from(JSON.stringify(values)).toString('base64')}` };
}

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

async function readBody(request: Request, limit: number): Promise<ArrayBuffer | undefined> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw gatewayError('PAYLOAD_TOO_LARGE');
  if (!request.body) return undefined;
  const body = await request.arrayBuffer();
  if (body.byteLength > limit) throw gatewayError('PAYLOAD_TOO_LARGE');
  return body.byteLength ? body : undefined;
}

function jsonObject(body: ArrayBuffer | undefined): Record<string, unknown> {
  if (!body) return {};
  try {
    const value = JSON.parse(Buffer.from(body).toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function errorResponse(error: unknown): Response {
  const known = error instanceof GatewayError ? error : gatewayError('UPSTREAM_ERROR');
  const http = known.extensions.http as { status: number; headers?: Record<string, string> };
  return jsonResponse(http.status, { errors: [{ message: known.message, extensions: { code: known.code } }] }, http.headers ?? {});
}

export function useDropInFront({ runtime }: DropInFrontOptions): Plugin<GatewayContext> {
  const { upstreamFetch, front, clock } = runtime;

  /** Passes a request to the upstream and its answer back. */
  const passThrough = async (request: Request, target: UpstreamTarget, path: string, operation: string, limit: number): Promise<{ response: Response; sent: Headers; body?: ArrayBuffer }> => {
    const headers = new Headers();
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers.get(name);
      // devise's own Authorization (base-64 JSON) only: never, say, a service account's API key.
      if (value !== null && (name !== 'authorization' || deviseAuthorization(value))) headers.set(name, value);
    }
    const body = await readBody(request, limit);
    const answer = await upstreamFetch(`${target.baseUrl}${path}`, { method: request.method, headers, ...(body ? { body } : {}) }, { environment: target.environment, operation });
    const text = await answer.text();
    const out = new Headers({ 'cache-control': 'no-store' });
    const type = answer.headers.get('content-type');
    if (type) out.set('content-type', type);
    for (const [name, value] of Object.entries(credentialHeadersOf(answer.headers) ?? {})) out.set(name, value);
    return { response: new Response(text, { status: answer.status, headers: out }), sent: headers, ...(body ? { body } : {}) };
  };

  return {
    async onRequest(payload) {
      const { request, url } = payload;
      const endResponse = (response: Response) => payload.endResponse(response);
      const path = url.pathname;
      if (path !== SIGN_IN_PATH && path !== SIGN_OUT_PATH && path !== FRONT_GRAPHQL_PATH) return;
      const method = path === SIGN_OUT_PATH ? 'DELETE' : 'POST';
      if (request.method !== method) {
        endResponse(jsonResponse(405, { errors: [{ message: `${path} accepts ${method} only.`, extensions: { code: 'BAD_REQUEST' } }] }, { allow: method }));
        return;
      }
      // A credential in the headers: GraphQL runs through the gateway (see useSessionAuth).
      if (path === FRONT_GRAPHQL_PATH && credentialFromHeaders((name) => request.headers.get(name))) return;
      const target = frontTarget(runtime, request);
      try {
        if (path === SIGN_IN_PATH) {
          const response = await signInWithinLimits(runtime, payload, target.environment, async () => (await passThrough(request, target, path, 'signIn', AUTH_BODY_LIMIT)).response);
          const credential = response.ok ? credentialFromHeaders((name) => response.headers.get(name)) : undefined;
          if (credential) await front.verified.remember(target.cacheNamespace, credential, clock());
          endResponse(response);
        } else if (path === SIGN_OUT_PATH) {
          const { response, sent, body } = await passThrough(request, target, path, 'signOut', AUTH_BODY_LIMIT);
          // devise reads the credential from the headers, else from the body (the JavaScript tutorial's form).
          const params = jsonObject(body);
          const credential = credentialFromHeaders((name) => sent.get(name) ?? (typeof params[name] === 'string' ? params[name] : null));
          if (credential) await front.verified.forget(target.cacheNamespace, credential);
          endResponse(response);
        } else {
          endResponse((await passThrough(request, target, path, 'graphql', runtime.config.limits.maxBodyBytes)).response);
        }
      } catch (error) {
        const response = errorResponse(error);
        runtime.metrics.graphqlError(error instanceof GatewayError ? error.code : 'UPSTREAM_ERROR');
        endResponse(response);
      }
    },

    onResultProcess(payload) {
      const refusal = stateOf(payload.request)?.dropIn?.refusal;
      if (!refusal) return;
      // The upstream refused the client's own credential: its answer, as it was.
      payload.setResultProcessor(() => new Response(refusal.body, { status: refusal.status, headers: refusal.headers }), 'application/json');
    },

    onResponse({ request, response }) {
      const state = stateOf(request);
      const dropIn = state?.dropIn;
      if (!dropIn || dropIn.refusal) return;
      const headers = dropIn.credentialHeaders ?? (dropIn.presented ? echoedCredentialHeaders(dropIn.presented) : undefined);
      for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
    },
  };
}
