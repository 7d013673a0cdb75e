/**
 * Idempotent mutations (the contract's "Idempotent mutations"): a mutation on /graphql with an
 * `Idempotency-Key`, from a browser session or a service account, runs at most once for that
 * upstream identity and key within IDEMPOTENCY_TTL. Before it runs, its record is claimed in one
 * atomic step (store.ts); a repeat of the same request gets the first answer again byte for byte
 * (`Idempotent-Replayed: true`), a repeat while it runs 409, another request under the key 422.
 * The answer is kept once the mutation went upstream, whatever it was (a lost answer may have been
 * applied); a request refused before that keeps nothing. The session store down fails it closed.
 * Requests without the header cost one header lookup.
 *
 * Two plugins share one state: `execution` claims (after identity and limits, before anything that
 * answers or calls the upstream), `responses` puts the kept answer in place and keeps a new one
 * (first among the answer's hooks, so the access log, cookies and audit see what the client gets).
 */
import { OperationTypeNode, print } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { DerivedKeys } from '../derived-keys';
import { gatewayError, type GatewayError } from '../errors';
import type { IdentityContext } from '../identity/use-identity';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import type { IdempotencyMarks } from './audit-mark';
import { idempotencyKeyOf, requestFingerprint } from './request-key';
import { openAnswer, sealAnswer, type StoredAnswer } from './sealed-answer';
import type { IdempotencyStore, RecordName } from './idempotency-store';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';
import type { UpstreamOutcomes } from '../upstream/outcome';

export interface IdempotencyOptions {
  /** The session store's records (never the evicting cache store: an evicted record would let a filing run twice). */
  readonly store: IdempotencyStore;
  readonly keys: Pick<DerivedKeys, 'mac' | 'name' | 'forPurpose'>;
  /** IDEMPOTENCY_TTL: how long a key and its answer are kept. */
  readonly ttlMs: number;
  /** How long a claim holds while its request runs; past it, a replica that died mid-request no longer blocks the key. */
  readonly pendingMs: number;
  /** Keys one identity may hold within `ttlMs` (default 1000): the store cannot be filled by one caller. */
  readonly maxPerIdentity?: number;
  readonly health: StoreHealth;
  readonly metrics: GatewayMetrics;
  readonly log: LogEvents;
  readonly clock: () => number;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** Each request's upstream outcome (upstream/outcome.ts). */
  readonly outcomes: UpstreamOutcomes;
  /** What the audit log says of each request's key (its hash, and whether the answer was a replay). */
  readonly marks: IdempotencyMarks;
}

/** The gateway's own mutations: a login's answer (its cookie) must never be replayed. */
const GATEWAY_MUTATIONS = new Set(['login', 'logout']);
/** Headers of the first answer that the replay carries (the others are the replay's own). */
const KEPT_HEADERS = ['content-type', 'retry-after'];

export interface IdempotencyPlugins {
  readonly execution: Plugin<IdentityContext>;
  readonly responses: Plugin;
}

export function useIdempotency(options: IdempotencyOptions): IdempotencyPlugins {
  const { store, keys, metrics, health, operations, outcomes, marks } = options;
  const maxPerIdentity = options.maxPerIdentity ?? 1_000;
  /** The document text as the client sent it (the fingerprint's first part). */
  const texts = new WeakMap<Request, string>();
  const claims = new WeakMap<Request, { readonly name: RecordName; readonly fingerprint: string }>();
  const replays = new WeakMap<Request, StoredAnswer>();

  const refuse = (error: GatewayError) => ({ errors: [error] });
  const storeDown = (error: unknown) => {
    health.failed(error);
    return refuse(gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error }));
  };

  const execution: Plugin<IdentityContext> = {
    onParams({ params, request }) {
      if (request.headers.has('idempotency-key') && typeof params.query === 'string') texts.set(request, params.query);
    },

    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue;
      const { request, identity } = context;
      if (!request.headers.has('idempotency-key')) return;
      const executed = operations.get(request);
      if (executed?.operation.operation !== OperationTypeNode.MUTATION) return;
      if (executed.fields.some((field) => GATEWAY_MUTATIONS.has(field.name.value))) return;
      const given = idempotencyKeyOf(request);
      if (given === undefined) return;
      if ('malformed' in given) return setResultAndStopExecution(refuse(gatewayError('BAD_REQUEST', 'Idempotency-Key must be 1 to 255 visible ASCII characters (! to ~).')));
      // Anonymous mutations (confirmRegistration) have no identity to keep a key for.
      if (!identity) return;
      // Per upstream identity (environment and user): two sessions of one user share their keys.
      const owner = keys.name('idempotency', identity.upstream.cacheNamespace, identity.uid);
      const name = { identity: owner, key: keys.name('idempotency-key', owner, given.key) };
      marks.mark(request, name.key, false);
      const text = texts.get(request) ?? print(executed.document);
      const operationName = typeof args.operationName === 'string' ? args.operationName : undefined;
      const fingerprint = requestFingerprint(keys, text, operationName, args.variableValues);
      let outcome: Awaited<ReturnType<IdempotencyStore['claim']>>;
      try {
        outcome = await store.claim(name, fingerprint, { pendingMs: options.pendingMs, ttlMs: options.ttlMs, maxPerIdentity, now: options.clock() });
        health.ok();
      } catch (error) {
        return setResultAndStopExecution(storeDown(error));
      }
      if (outcome.status === 'claimed') {
        claims.set(request, { name, fingerprint });
        return;
      }
      if (outcome.status === 'full') {
        return setResultAndStopExecution(refuse(gatewayError('RATE_LIMITED', 'Too many Idempotency-Keys in use for this identity. Try again later.', { headers: { 'retry-after': '60' } })));
      }
      if (outcome.fingerprint !== fingerprint) {
        metrics.idempotency('reused');
        return setResultAndStopExecution(refuse(gatewayError('IDEMPOTENCY_KEY_REUSED')));
      }
      if (outcome.status === 'pending') {
        metrics.idempotency('in_use');
        return setResultAndStopExecution(refuse(gatewayError('IDEMPOTENCY_KEY_IN_USE', undefined, { headers: { 'retry-after': '1' } })));
      }
      const answer = openAnswer(keys, name, fingerprint, outcome.answer);
      if (!answer) {
        // Sealed under a key no longer configured, or altered in the store: never run it again.
        options.log.unexpectedError({ error: new Error('idempotency record does not open'), operation: executed.names });
        return setResultAndStopExecution(refuse(gatewayError('INTERNAL_SERVER_ERROR')));
      }
      replays.set(request, answer);
      // Audited as a replay, not as a second run of the mutation.
      marks.mark(request, name.key, true);
      metrics.idempotency('replayed');
      // Replaced by the kept answer on the way out (onResponse).
      return setResultAndStopExecution({ data: null });
    },
  };

  const responses: Plugin = {
    async onResponse(payload) {
      const { request, response } = payload;
      const replay = replays.get(request);
      if (replay) {
        // The replay's own headers (CORS, request id) stay; those describing the body are the first answer's.
        const headers = new Headers(response.headers);
        for (const header of ['content-type', 'content-length', ...KEPT_HEADERS]) headers.delete(header);
        for (const [header, value] of Object.entries(replay.headers)) headers.set(header, value);
        headers.set('idempotent-replayed', 'true');
        payload.setResponse(new Response(replay.body, { status: replay.status, headers }));
        return;
      }
      const claim = claims.get(request);
      if (!claim) return;
      try {
        if (!outcomes.of(request).sent) {
          // Refused before the upstream (an open circuit, a failed credential): nothing to keep.
          await store.release(claim.name, claim.fingerprint);
          return;
        }
        const headers: Record<string, string> = {};
        for (const header of KEPT_HEADERS) {
          const value = response.headers.get(header);
          if (value !== null) headers[header] = value;
        }
        const answer = { status: response.status, headers, body: await response.clone().text() };
        await store.complete(claim.name, claim.fingerprint, sealAnswer(keys, claim.name, claim.fingerprint, answer), options.ttlMs);
        metrics.idempotency('stored');
      } catch (error) {
        // The mutation ran; its record stays pending until `pendingMs` (409s), never unprotected.
        health.failed(error);
        options.log.unexpectedError({ error, operation: operations.get(request)?.names });
      }
    },
  };
  return { execution, responses };
}
