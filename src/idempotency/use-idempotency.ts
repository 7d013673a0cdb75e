/**
 * Idempotent mutations (the contract's "Idempotent mutations"): a mutation on /graphql with an
 * `Idempotency-Key`, from a browser session or a service account, runs at most once for that
 * upstream identity and key within IDEMPOTENCY_TTL, however long it runs. Before it runs, its record
 * is claimed in one atomic step (idempotency-store.ts) and its lease renewed while it runs
 * (claim-lease.ts); a repeat of the same request gets the first answer again byte for byte
 * (`Idempotent-Replayed: true`), a repeat while it runs 409, another request under the key 422.
 * The answer is kept once the mutation went upstream, whatever it was (a lost answer may have been
 * applied); a request refused before that keeps nothing. A claim whose holder is gone without an
 * answer is settled by the next repeat as a kept UPSTREAM_UNAVAILABLE, never run again. The
 * session store down fails it closed. Requests without the header cost one header lookup.
 *
 * Two plugins share one state: `execution` claims (after identity and limits, before anything that
 * answers or calls the upstream), `responses` puts the kept answer in place and keeps a new one
 * (first among the answer's hooks, so the access log, cookies and audit see what the client gets).
 */
import { randomUUID } from 'node:crypto';
import { OperationTypeNode, print } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { DerivedKeys } from '../derived-keys';
import { gatewayError, type GatewayError } from '../errors';
import type { IdentityContext } from '../identity/use-identity';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import type { IdempotencyMarks } from './audit-mark';
import { holdLease, type ClaimLease } from './claim-lease';
import { KEPT_HEADERS, keptAnswerOf, unknownOutcome } from './kept-answer';
import { fingerprintParts, idempotencyKeyOf, isFingerprintOf, requestFingerprint } from './request-key';
import { openAnswer, sealAnswer, type StoredAnswer } from './sealed-answer';
import { foundOutcome, type ClaimOutcome, type FoundOutcome, type IdempotencyStore, type RecordName } from './idempotency-store';
import type { DocumentFacts, ExecutedOperation } from '../request/executed';
import { SESSION_FIELDS } from '../request/root-fields';
import type { RequestSlot } from '../request/slot';
import type { UpstreamOutcomes } from '../upstream/outcome';

export interface IdempotencyOptions {
  /** The session store's records (never the evicting cache store: an evicted record would let a filing run twice). */
  readonly store: IdempotencyStore;
  readonly keys: Pick<DerivedKeys, 'mac' | 'verify' | 'name' | 'names' | 'forPurpose'>;
  /** IDEMPOTENCY_TTL: how long a key and its answer are kept. */
  readonly ttlMs: number;
  /**
   * How long a claim holds past its last renewal: a replica that died mid-request leaves its key
   * "outcome unknown" this long after it stopped renewing (the contract: UPSTREAM_TIMEOUT_MS + 10 s).
   */
  readonly leaseMs: number;
  /** Keys one identity may hold within `ttlMs` (default 1000): the store cannot be filled by one caller. */
  readonly maxPerIdentity?: number;
  /** IDEMPOTENCY_MAX_BYTES: kept answers' bytes (as stored) one identity may hold before a new key is refused. */
  readonly maxBytes: number;
  /**
   * Claims of one identity running at once (default 8), each counted as `reserveBytes` (default
   * 64 KiB) against `maxBytes` until its answer is kept: without both, concurrent requests all pass
   * a bound that only counts kept answers (30 at once stored 47 times a 1 KiB bound).
   */
  readonly maxRunning?: number;
  readonly reserveBytes?: number;
  readonly health: StoreHealth;
  readonly metrics: GatewayMetrics;
  readonly log: LogEvents;
  readonly clock: () => number;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** What the operation selects (a keyed mutation may not select `pdf`). */
  readonly documents: Pick<DocumentFacts, 'operationDocument' | 'selectsPdf'>;
  /** Each request's upstream outcome (upstream/outcome.ts). */
  readonly outcomes: UpstreamOutcomes;
  /** What the audit log says of each request's key (its hash, and whether the answer was a replay). */
  readonly marks: IdempotencyMarks;
}


export interface IdempotencyPlugins {
  readonly execution: Plugin<IdentityContext>;
  readonly responses: Plugin;
}

interface Claim {
  readonly name: RecordName;
  readonly fingerprint: string;
  readonly token: string;
  readonly lease: ClaimLease;
}

/** A record that is not this request's to run: where it is, and the fingerprint it holds. */
type Found = { readonly name: RecordName; readonly outcome: FoundOutcome };

export function useIdempotency(options: IdempotencyOptions): IdempotencyPlugins {
  const { store, keys, metrics, health, operations, outcomes, marks, log, clock } = options;
  const maxPerIdentity = options.maxPerIdentity ?? 1_000;
  const maxRunning = options.maxRunning ?? 8;
  const reserveBytes = options.reserveBytes ?? 64 * 1024;
  /** The document text as the client sent it (the fingerprint's first part). */
  const texts = new WeakMap<Request, string>();
  const claims = new WeakMap<Request, Claim>();
  const replays = new WeakMap<Request, StoredAnswer>();

  const refuse = (error: GatewayError) => ({ errors: [error] });
  const storeDown = (error: unknown) => {
    health.failed(error);
    return refuse(gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error }));
  };
  const inUse = () => {
    metrics.idempotency('in_use');
    return refuse(gatewayError('IDEMPOTENCY_KEY_IN_USE', undefined, { headers: { 'retry-after': '1' } }));
  };

  /**
   * The same record's other names: under each CREDENTIAL_KEY_PREVIOUS key, and, for a service
   * account, under the owner records had before service accounts got keys of their own (legacy
   * prefix). A request looks there before it claims and again after (claim-then-check): of two
   * replicas that claim one key under two names at once, at least one sees the other's claim, and
   * gives its own back unrun.
   */
  const otherNames = (owners: readonly string[], key: string, legacyOwners: readonly string[]): RecordName[] => [
    ...owners.slice(1).map((identity, index) => ({ identity, key: keys.names('idempotency-key', identity, key)[index + 1] as string })),
    ...legacyOwners.map((identity, index) => ({ identity, key: keys.names('idempotency-key', identity, key)[index] as string, legacy: true })),
  ];

  const findElsewhere = async (names: readonly RecordName[]): Promise<Found | undefined> => {
    for (const name of names) {
      const record = await store.find(name);
      if (record) return { name, outcome: foundOutcome(record, clock()) };
    }
    return undefined;
  };

  /** Settles a claim whose holder is gone: "outcome unknown" is kept (unless its holder came back first: undefined, still running). */
  const settle = async (request: Request, name: RecordName, fingerprint: string): Promise<string | undefined> => {
    const sealed = await sealAnswer(keys, name, fingerprint, unknownOutcome());
    const settled = await store.complete(name, fingerprint, sealed, { ttlMs: options.ttlMs, now: clock(), orphanedOnly: true });
    if (settled.status === 'kept') return settled.answer;
    if (settled.status !== 'stored') return undefined;
    log.idempotencyOutcomeUnknown({ keyHash: marks.get(request)?.keyHash ?? '', reason: 'holder-gone' });
    return sealed;
  };

  /** What a request gets for a record that is not its to run. */
  const answerFound = async (request: Request, { name, outcome }: Found, sameRequest: boolean) => {
    if (!sameRequest) {
      metrics.idempotency('reused');
      return refuse(gatewayError('IDEMPOTENCY_KEY_REUSED'));
    }
    if (outcome.status === 'pending') return inUse();
    const text = outcome.status === 'done' ? outcome.answer : await settle(request, name, outcome.fingerprint);
    if (text === undefined) return inUse();
    const answer = await openAnswer(keys, name, outcome.fingerprint, text);
    if (!answer) {
      // Sealed under a key no longer configured, or altered in the store: never run it again.
      log.unexpectedError({ error: new Error('idempotency record does not open'), operation: operations.get(request)?.names });
      return refuse(gatewayError('INTERNAL_SERVER_ERROR'));
    }
    replays.set(request, answer);
    // Audited as a replay, not as a second run of the mutation.
    marks.mark(request, name.key, true);
    metrics.idempotency('replayed');
    // Replaced by the kept answer on the way out (onResponse).
    return { data: null };
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
      // The session fields are never kept: a login's answer (its cookie) must never be replayed.
      if (executed.fields.some((field) => SESSION_FIELDS.has(field.name.value))) return;
      const given = idempotencyKeyOf(request);
      if (given === undefined) return;
      if ('malformed' in given) return setResultAndStopExecution(refuse(gatewayError('BAD_REQUEST', 'Idempotency-Key must be 1 to 255 visible ASCII characters (! to ~).')));
      // Anonymous mutations (confirmRegistration) have no identity to keep a key for.
      if (!identity) return;
      // A PDF in a kept answer would hold megabytes per key in the session store, for 24 hours.
      const own = options.documents.operationDocument(executed);
      if (own && options.documents.selectsPdf(own)) {
        return setResultAndStopExecution(refuse(gatewayError('BAD_REQUEST', 'A mutation with an Idempotency-Key may not select pdf: read PDFs with a query afterwards.')));
      }
      // Per upstream user and environment: two browser sessions of one user share their keys (a
      // retry after signing in again replays); a service account has keys of its own.
      const account = identity.description.actor === 'service-account' ? ['service-account', identity.description.account ?? ''] : [];
      const owners = keys.names('idempotency', identity.upstream.cacheNamespace, identity.uid, ...account);
      const name = { identity: owners[0] as string, key: keys.name('idempotency-key', owners[0] as string, given.key) };
      marks.mark(request, name.key, false);
      const operationName = typeof args.operationName === 'string' ? args.operationName : undefined;
      const parts = fingerprintParts(texts.get(request) ?? print(executed.document), operationName, args.variableValues);
      const fingerprint = requestFingerprint(keys, parts);
      const elsewhere = otherNames(owners, given.key, account.length ? keys.names('idempotency', identity.upstream.cacheNamespace, identity.uid) : []);
      const answerElsewhere = async (found: Found) => setResultAndStopExecution(await answerFound(request, found, isFingerprintOf(keys, found.outcome.fingerprint, parts)));
      const token = randomUUID();
      let outcome: ClaimOutcome;
      try {
        const before = elsewhere.length ? await findElsewhere(elsewhere) : undefined;
        if (before) return await answerElsewhere(before);
        outcome = await store.claim(name, fingerprint, { token, leaseMs: options.leaseMs, ttlMs: options.ttlMs, maxPerIdentity, maxRunning, maxBytes: options.maxBytes, reserveBytes, now: clock() });
        health.ok();
      } catch (error) {
        // The claim may still reach the store after this request gave up (a stalled store): its own
        // token takes it back, so a mutation that never ran is not kept as "outcome unknown".
        store.release(name, token).catch(() => undefined);
        return setResultAndStopExecution(storeDown(error));
      }
      try {
        if (outcome.status === 'claimed') {
          const after = elsewhere.length ? await findElsewhere(elsewhere) : undefined;
          if (after) {
            await store.release(name, token);
            return await answerElsewhere(after);
          }
          const lease = holdLease(name, token, { store, leaseMs: options.leaseMs, clock, failed: (error) => health.failed(error) });
          claims.set(request, { name, fingerprint, token, lease });
          return;
        }
        if (outcome.status === 'full') {
          log.rateLimited({ limit: 'idempotency' });
          metrics.rateLimited('idempotency');
          const seconds = String(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000)));
          return setResultAndStopExecution(refuse(gatewayError('RATE_LIMITED', 'Too many kept answers (keys, bytes or requests running) for this identity. Try again later.', { headers: { 'retry-after': seconds } })));
        }
        const at = outcome.legacy ? { ...name, legacy: true } : name;
        return await answerElsewhere({ name: at, outcome });
      } catch (error) {
        return setResultAndStopExecution(storeDown(error));
      }
    },
  };

  /** Stores the request's answer (or releases its claim when it never reached the upstream). */
  const keep = async (payload: { request: Request; response: Response; setResponse(response: Response): void }, claim: Claim) => {
    const { request, response } = payload;
    if (!outcomes.of(request).sent) {
      // Refused before the upstream (an open circuit, a failed credential): nothing to keep.
      await store.release(claim.name, claim.token);
      return;
    }
    const { answer, changed } = await keptAnswerOf(response);
    if (changed) {
      // The first answer is what every replay will be (no retry hints on a final UPSTREAM_UNAVAILABLE).
      const headers = new Headers(response.headers);
      headers.delete('retry-after');
      headers.delete('content-length');
      payload.setResponse(new Response(answer.body, { status: answer.status, headers }));
    }
    const sealed = await sealAnswer(keys, claim.name, claim.fingerprint, answer);
    const stored = await store.complete(claim.name, claim.fingerprint, sealed, { ttlMs: options.ttlMs, now: clock(), token: claim.token });
    if (stored.status === 'stored') return metrics.idempotency('stored');
    // The lease lapsed (a long stall) and a repeat settled the key as "outcome unknown" first.
    log.idempotencyOutcomeUnknown({ keyHash: marks.get(request)?.keyHash ?? '', reason: 'answer-lost' });
  };

  const responses: Plugin = {
    async onResponse(payload) {
      const { request, response } = payload;
      const replay = replays.get(request);
      if (replay) {
        // The replay's own headers (CORS, request id) stay; those describing the body are the first answer's.
        const headers = new Headers(response.headers);
        for (const header of ['content-length', ...KEPT_HEADERS]) headers.delete(header);
        for (const [header, value] of Object.entries(replay.headers)) headers.set(header, value);
        headers.set('idempotent-replayed', 'true');
        payload.setResponse(new Response(replay.body, { status: replay.status, headers }));
        return;
      }
      const claim = claims.get(request);
      if (!claim) return;
      try {
        await keep(payload, claim);
      } catch (error) {
        // The mutation ran; its claim lapses without renewal and is then kept as "outcome unknown", never run again.
        health.failed(error);
        log.unexpectedError({ error, operation: operations.get(request)?.names });
      } finally {
        claim.lease.stop();
      }
    },
  };
  return { execution, responses };
}
