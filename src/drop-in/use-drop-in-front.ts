/**
 * The drop-in front: the upstream's own endpoints on the gateway, for API clients written against
 * the upstream that only change their base URL (paths and environments: front-paths.ts).
 *
 * - `POST .../v2/auth/sign_in` and `DELETE .../v2/auth/sign_out` are passed to the upstream and
 *   their answers back as they are (status line, body, credential headers); only the failure of
 *   the upstream itself becomes the gateway's JSON error, without its URL.
 * - `POST .../v2/graphql` with a JSON body and a credential the upstream accepted recently
 *   (verified-credentials) runs through the gateway (caches, limits, metrics) as a `drop-in`
 *   identity; the credential headers of the upstream's answer go back to the client (echoed as
 *   devise would when no upstream call answered), and an upstream refusal (401) is the upstream's
 *   own answer.
 * - Any other GraphQL request (no credential, devise's body parameters, a credential the upstream
 *   has not accepted, or a body Yoga would not read as JSON, which the upstream reads and Yoga's
 *   pipeline could only answer 415) is passed through as it came: the upstream alone decides, so
 *   a forged credential is never echoed nor answered by the gateway, not even for `{ __typename }`.
 *   An answer that accepts the credential makes it verified for the next requests. A query text
 *   graphql-js cannot parse is the exception: it is never sent (no limit could measure it), and is
 *   answered as the upstream would answer it (unparsableAnswer).
 *
 * Every front request is logged (request.completed) by useAccessLog, which runs before this plugin.
 */
import { OperationTypeNode, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { CacheStore } from '../cache/cache-store';
import { identityScope } from '../cache/scope';
import { dropIdentityCaches } from '../cache/use-cache-invalidation';
import type { LimitsConfig } from '../config';
import { credentialFromHeaders, type UpstreamCredential } from '../upstream/credential';
import type { Environment } from '../environment';
import { errorResponse, GatewayError, gatewayError } from '../errors';
import { isJsonType } from '../http/use-routes';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { LoginLimits } from '../protection/login-limits';
import { overLimit, type RateLimitStore } from '../protection/rate-limiter';
import { anonymousCounterKey, type AddressNames } from '../protection/use-anonymous-limit';
import type { UpstreamFetch } from '../upstream/fetch';
import type { UpstreamTarget } from '../upstream/target';
import { echoedCredentialHeaders, failureResponse, framedAsUpstream, frontJsonParser, malformedJsonAnswer, notFoundAnswer, parseErrorAnswer, signInRequiredAnswer, tooLargeAnswer } from './front-answers';
import { FRONT_LIMITS } from './front-limits';
import { frontTarget } from './front-identity';
import { frontRequestOf, type FrontRoute } from './front-paths';
import { credentialHeadersOf, passThrough, readBody, upstreamStyleResponse, type PassThroughCall } from './pass-through';
import { bodyParams } from './body-params';
import { checkPassThrough, readPassThrough, type PassThroughRequest } from './pass-through-limits';
import { signInParams, signInWithinLimits, unreadableSignIn } from './sign-in-limits';
import type { DropInState, DropInStates } from './state';
import type { VerifiedCredentials } from './verified-credentials';
import type { RequestSlot } from '../request/slot';
import type { ClientAddresses } from '../protection/client-address';

export { credentialHeadersOf } from './pass-through';

/** Sign-in and sign-out bodies are a few hundred bytes; GraphQL bodies may hold hundreds of statements. */
const AUTH_BODY_LIMIT = 64 * 1024;

export interface DropInFrontOptions {
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  readonly upstreamFetch: UpstreamFetch;
  readonly verified: VerifiedCredentials;
  /** The anonymous limit; the front's sizes are the upstream's (front-limits.ts). */
  readonly limits: Pick<LimitsConfig, 'anonymous'>;
  /** The anonymous limit's counters, shared with /graphql (failing open). */
  readonly counters: RateLimitStore;
  /** Names an address's counter as /graphql's anonymous limit does (an HMAC). */
  readonly names: AddressNames;
  readonly loginLimits: LoginLimits;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  readonly clock: () => number;
  /** The upstream user each request acted as, for its access log line. */
  readonly uid: RequestSlot<string>;
  /** Each request's client address (useClientAddress). */
  readonly addresses: ClientAddresses;
  /** The drop-in front's state of each request (drop-in/state.ts). */
  readonly dropIn: DropInStates;
  /** The caches a mutation passed through drops for its uid, as useCacheInvalidation does in the pipeline. */
  readonly cacheStore: CacheStore;
}

export function useDropInFront(options: DropInFrontOptions): Plugin {
  const { upstreamFetch, verified, limits, counters, names, loginLimits, log, metrics, clock, uid, addresses, dropIn: states, cacheStore } = options;
  /** The schema being served, for the limits on passed-through GraphQL (its statements and pages). */
  let schema: GraphQLSchema | undefined;
  const call = (target: UpstreamTarget, route: FrontRoute, operation: string, retry?: 'safe'): PassThroughCall =>
    ({ upstreamFetch, target, path: route.upstreamPath, operation, ...(retry ? { retry } : {}) });

  /**
   * Sign-in: the upstream's answer as it is; a credential it hands out is verified from now on.
   * The body (devise's `{ email, password }`) is read before the upstream call, so that checks of
   * the attempt can come first.
   */
  const signIn = async (request: Request, target: UpstreamTarget, route: FrontRoute, state: DropInState): Promise<Response> => {
    const params = signInParams(await readBody(request, AUTH_BODY_LIMIT), request.headers.get('content-type'));
    if (params === 'malformed') return malformedJsonAnswer();
    if (!params) return unreadableSignIn();
    const attempt = { address: addresses.of(request), email: params.email, environment: target.environment };
    state.signInEmail = params.email;
    return signInWithinLimits(loginLimits, attempt, async () => {
      // The body the limits read, and nothing else, goes upstream.
      const rebuilt = new TextEncoder().encode(JSON.stringify(params)).buffer;
      const { response } = await passThrough(request, rebuilt, call(target, route, 'signIn', 'safe'), 'application/json');
      const credential = response.ok ? credentialFromHeaders((name) => response.headers.get(name)) : undefined;
      if (credential) {
        uid.set(request, credential.uid);
        await verified.remember(target.cacheNamespace, credential, clock());
      }
      return response;
    });
  };

  /** Sign-out: the upstream's answer; the client's credential is no longer verified. */
  const signOut = async (request: Request, target: UpstreamTarget, route: FrontRoute): Promise<Response> => {
    const body = await readBody(request, AUTH_BODY_LIMIT);
    const { response, sent } = await passThrough(request, body, call(target, route, 'signOut'));
    // devise reads the credential from the headers, else from the body (the JavaScript tutorial's form).
    const read = bodyParams(body, request.headers.get('content-type'));
    const params = typeof read === 'object' ? read : {};
    const credential = credentialFromHeaders((name) => sent.get(name) ?? (typeof params[name] === 'string' ? params[name] : null));
    if (credential) {
      if (response.ok) uid.set(request, credential.uid);
      await verified.forget(target.cacheNamespace, credential);
    }
    return response;
  };

  /**
   * A query text that does not parse, answered here when the answer does not hang on the upstream:
   * without a credential (devise reads the headers, then the body), devise's 401; with one the
   * upstream accepted recently, the syntax error. Undefined: the upstream is asked about the
   * credential, with an empty query in place of the text (pass-through-limits.ts).
   */
  const unparsableAnswer = async (request: Request, target: UpstreamTarget, presented: UpstreamCredential | undefined, unparsable: NonNullable<PassThroughRequest['unparsable']>, reverifying: boolean): Promise<Response | undefined> => {
    if (!credentialFromHeaders((name) => request.headers.get(name) ?? unparsable.credentialFields[name])) return signInRequiredAnswer();
    // A request that re-verifies the credential asks the upstream whatever its text.
    const record = presented && !reverifying ? await verified.check(target.cacheNamespace, presented) : undefined;
    if (!presented || !record) return undefined;
    uid.set(request, presented.uid);
    return parseErrorAnswer(unparsable.error, echoedCredentialHeaders(record.expiry ? { ...presented, expiry: Number(record.expiry) } : presented));
  };

  /**
   * GraphQL the gateway does not run: the upstream's answer; one that accepts the credential
   * verifies it, a refusal (401) forgets it. The cheap bounds first (readPassThrough), then the
   * anonymous limit of the address (no identity the gateway's limits know: confirmation tokens
   * guessed, forged credentials) on the counter /graphql uses, counting root fields as /graphql
   * does, then the walks over the document (checkPassThrough).
   */
  const graphqlPassThrough = async (request: Request, target: UpstreamTarget, route: FrontRoute, presented: UpstreamCredential | undefined, state: DropInState, reverifying = false): Promise<Response> => {
    const body = await readBody(request, FRONT_LIMITS.maxBodyBytes);
    let read: PassThroughRequest | 'malformed' | undefined;
    let refusal: GatewayError | undefined;
    try {
      read = readPassThrough(body, request.headers.get('content-type'), FRONT_LIMITS);
    } catch (error) {
      // Refused, yet counted first: a flood of refused documents still spends the address's limit.
      refusal = error instanceof GatewayError ? error : gatewayError('QUERY_TOO_COMPLEX', undefined, { cause: error });
    }
    const parsed = typeof read === 'object' ? read : undefined;
    // Audited whatever happens next (useAuditLog), refusals included.
    if (parsed?.operation?.operation === OperationTypeNode.MUTATION) state.passedMutation = { fields: parsed.fields, variables: parsed.variables };
    const { anonymous } = limits;
    const weight = Math.max(1, parsed?.fields.length ?? 1);
    const decision = await counters.hit(anonymousCounterKey(names, addresses.of(request)), anonymous.max, anonymous.windowMs, weight);
    if (!decision.allowed) throw overLimit({ log, metrics }, 'anonymous', decision);
    if (refusal) throw refusal;
    if (read === 'malformed') return malformedJsonAnswer();
    if (!parsed || !schema) throw gatewayError('UPSTREAM_UNAVAILABLE', undefined, { headers: { 'retry-after': '1' } });
    const { unparsable } = parsed;
    if (!unparsable) checkPassThrough(schema, parsed);
    const local = unparsable && (await unparsableAnswer(request, target, presented, unparsable, reverifying));
    if (local) return local;
    // Retried only when the body was read as a query: a mutation, or a body not understood, goes once.
    const retry = parsed.operation?.operation === OperationTypeNode.QUERY ? 'safe' : undefined;
    // Exactly what was read and checked goes upstream (body-params.ts, forwardedBody), or an empty query.
    const { response: answer } = await passThrough(request, parsed.forward.body, call(target, route, 'graphql', retry), parsed.forward.contentType);
    // The upstream's verdict on the credential, with the syntax error it would have given the text.
    const response = unparsable && answer.status === 200 ? parseErrorAnswer(unparsable.error, credentialHeadersOf(answer.headers) ?? {}) : answer;
    // Signed out elsewhere (or forged): nothing cached may answer for it from now on.
    if (presented && response.status === 401) await verified.forget(target.cacheNamespace, presented);
    const answered = credentialHeadersOf(response.headers);
    // A mutation the upstream ran for a uid (its answer names it): what the caches hold for that uid
    // may be stale. The pipeline drops it (useCacheInvalidation); a mutation passed through, a
    // verified credential's form body for one, drops it here.
    // All of its PDFs: the gateway did not validate the document to see which it names.
    if (response.ok && answered?.uid && parsed.operation?.operation === OperationTypeNode.MUTATION) {
      await dropIdentityCaches(cacheStore, identityScope(target.cacheNamespace, answered.uid), 'all');
    }
    // Only devise's headers for this uid and client say the upstream authenticated the credential
    // (confirmRegistration or introspection answer 200 without one).
    if (!presented || !response.ok || answered?.uid !== presented.uid || answered.client !== presented.client) return response;
    uid.set(request, presented.uid);
    const rotated = credentialFromHeaders((name) => answered[name]);
    await verified.remember(target.cacheNamespace, rotated ?? presented, clock());
    return response;
  };

  return {
    onSchemaChange({ schema: current }) {
      schema = current as GraphQLSchema;
    },

    async onRequest(payload) {
      const { request } = payload;
      const front = frontRequestOf(request);
      if (!front) return;
      const { route } = front;
      const state = states.begin(request);
      const endResponse = (response: Response) => payload.endResponse(response);
      // The upstream routes by method and path: another method is a path it does not serve.
      if (request.method !== route.method) {
        endResponse(notFoundAnswer());
        return;
      }
      if (front.environment === 'conflict') {
        const message = `X-Upstream-Environment contradicts the path's /${route.prefix ?? ''} prefix: send one of them.`;
        endResponse(errorResponse(400, 'BAD_REQUEST', message));
        return;
      }
      const target = frontTarget(options.upstreams, request);
      try {
        if (route.endpoint === 'signIn') return endResponse(await signIn(request, target, route, state));
        if (route.endpoint === 'signOut') return endResponse(await signOut(request, target, route));
        const presented = credentialFromHeaders((name) => request.headers.get(name));
        const record = presented && isJsonType(request.headers.get('content-type')) ? await verified.check(target.cacheNamespace, presented) : undefined;
        // Due for re-verification (verified-credentials.ts): the one request that claims it asks the upstream.
        const reverifying = Boolean(presented && record?.due && (await verified.claimReverification(target.cacheNamespace, presented)));
        if (presented && record && !reverifying) {
          // Runs through the gateway, as the drop-in identity (front-identity.ts reads it from here).
          state.verified = record.expiry ? { ...presented, expiry: Number(record.expiry) } : presented;
          uid.set(request, presented.uid);
          return;
        }
        if (!reverifying) return endResponse(await graphqlPassThrough(request, target, route, presented, state));
        const response = await graphqlPassThrough(request, target, route, presented, state, true).catch((error: unknown) => {
          metrics.frontReverification('failed');
          throw error;
        });
        metrics.frontReverification(response.status === 401 ? 'refused' : credentialHeadersOf(response.headers)?.uid === presented?.uid ? 'accepted' : 'failed');
        endResponse(response);
      } catch (error) {
        const code = error instanceof GatewayError ? error.code : 'UPSTREAM_ERROR';
        state.refusedWith = code;
        metrics.graphqlError(code);
        endResponse(code === 'PAYLOAD_TOO_LARGE' ? tooLargeAnswer() : failureResponse(error));
      }
    },

    onRequestParse(payload) {
      // A verified credential's request runs through Yoga: malformed JSON gets the upstream's answer.
      if (states.of(payload.request)?.verified) payload.setRequestParser(frontJsonParser);
    },

    onResultProcess(payload) {
      const refusal = states.of(payload.request)?.refusal;
      if (!refusal) return;
      // The upstream refused the client's own credential: its answer, as it was.
      payload.setResultProcessor(() => upstreamStyleResponse(refusal.status, refusal.body, refusal.headers), 'application/json');
    },

    async onResponse(payload) {
      const { request, response } = payload;
      const dropIn = states.of(request);
      if (!dropIn) return;
      if (!dropIn.refusal) {
        // `presented` is only set for a verified credential: a forged one was passed through above.
        // A GraphQL answer given before the identity ran (a parse error, no query) echoes the verified
        // credential as devise does; Rails' own refusals (malformed JSON: 400) come before devise.
        const echoed = dropIn.presented ?? (response.status === 200 ? dropIn.verified : undefined);
        const headers = dropIn.credentialHeaders ?? (echoed ? echoedCredentialHeaders(echoed) : undefined);
        for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
      }
      // Every answer on the front, the gateway's own included, framed as the upstream frames its own.
      payload.setResponse(await framedAsUpstream(response));
    },
  };
}
