/**
 * The gateway's execute steps, in order: the one list of onExecute plugins that plugins.ts places
 * in the pipeline and whose shared steps the hot path (src/hot-path/) walks in the same order. A
 * check written here reaches both: a step shared with the hot path gives it a function over the
 * same plugin (execute-step.ts), so the step's per-request result is one (a request the hot path
 * hands to the pipeline is identified, limited and sent upstream once); a step of the pipeline
 * alone says why the hot path does without it.
 *
 * The checks come first, each of which may refuse the request; then the step that makes documents
 * hot (fast-path/use-hot-documents.ts), where every check, and before them parsing, validation and
 * the query limits, has passed; then the answers: caches and the fast path.
 */
import type { Plugin } from 'graphql-yoga';
import type { GroupRead } from '../cache/cache-store';
import type { DefinitionsAnswers } from '../cache/definitions-answers';
import { ageOf, cleanResult, readKey, type ReadCache, type ReadCacheScope } from '../cache/read-cache';
import { useCacheInvalidation } from '../cache/use-cache-invalidation';
import { useDefinitionsAnswers } from '../cache/use-definitions-answers';
import { useReadCache } from '../cache/use-read-cache';
import { environmentNamed } from '../environment';
import type { HotDocuments } from '../fast-path/hot-documents';
import { useFastPath } from '../fast-path/use-fast-path';
import { useHotDocuments } from '../fast-path/use-hot-documents';
import { HAND_OVER } from '../hot-path/hot-step';
import type { IdentityStrategy } from '../identity/strategy';
import { useIdentity, type IdentityContext } from '../identity/use-identity';
import { useAnonymousLimit } from '../protection/use-anonymous-limit';
import { useRateLimits } from '../protection/use-rate-limits';
import { useExecutedOperation } from '../request/executed';
import { RequestSlot } from '../request/slot';
import { useCsrf } from '../session/use-csrf';
import { useLoneSessionFields } from '../session/use-lone-session-fields';
import { pipelineStep, sharedStep, type ExecuteStep } from './execute-step';
import type { GatewayRuntime } from './runtime';

export interface ExecuteStepsParts {
  /** Who a request may act as, in this order (plugins.ts: gatewayIdentities). */
  readonly identities: readonly IdentityStrategy[];
  /** The documents the hot path answers, when it runs (server.ts). */
  readonly hot: HotDocuments | undefined;
  /** The read cache's steps (cache-steps.ts). */
  readonly reads: ReadCache;
  /** The definitions answers' steps (cache-steps.ts). */
  readonly definitionsAnswers: DefinitionsAnswers;
  /** Idempotency's execute half (its other half answers on the way out: plugins.ts places it). */
  readonly idempotency: Plugin<IdentityContext>;
  /** With tracing, the operation span's start. */
  readonly spanStart: Plugin | undefined;
  /** GraphQL requests the gateway sends itself (the PDF download's read): no CSRF check. */
  readonly isInternal: (request: Request) => boolean;
}

/** A statement read's lookup, started once the identity is known (the read cache's own, per request). */
interface Lookup {
  readonly scope: ReadCacheScope;
  readonly key: string;
  readonly read: Promise<GroupRead>;
}

export function gatewayExecuteSteps(runtime: GatewayRuntime, { identities, hot, reads, definitionsAnswers: answers, idempotency, spanStart, isInternal }: ExecuteStepsParts): ExecuteStep[] {
  const { config, log, metrics, upstreams, caches, rateLimits, documents, plans } = runtime;
  const { limits } = config;
  const { operations, addresses, sessionCookies, outcomes, uid } = runtime.requestState;
  const csrf = useCsrf({ allowedOrigins: config.allowedOrigins, trustProxy: config.trustProxy, cookieSecure: config.cookieSecure, log, exempt: isInternal, operations, sessionCookies });
  // An anonymous request's calls (confirmRegistration) go to the sandbox, or where X-Upstream-Environment says.
  const defaultUpstream = (request: Request) => upstreams[environmentNamed(request.headers.get('x-upstream-environment'))];
  const identity = useIdentity({ strategies: identities, production: config.production, defaultUpstream, operations, uid });
  const sessionLimit = useRateLimits({ limit: limits.session, counters: rateLimits, log, metrics, operations });
  const fastPath = config.fastPath ? useFastPath({ plans, forwarder: runtime.forwarder, operations }) : undefined;
  const readCache = useReadCache({ cache: reads, operations });
  const lookups = new RequestSlot<Lookup>();

  const checks: ExecuteStep[] = [
    // From here on, every step reads the executed operation and its root fields (found once).
    sharedStep('executed operation', useExecutedOperation({ operations, documents }), ({ request, entry }) => {
      operations.set(request, entry.executed);
      return undefined;
    }),
    // With tracing, the operation's span starts here (and ends after the audit log: plugins.ts).
    ...(spanStart ? [pipelineStep('operation span', spanStart, 'With tracing there is no hot path: the spans are the pipeline\'s (server.ts).')] : []),
    // login, logout (and the other session fields) alone in their operation, before anything of it runs.
    pipelineStep('lone session fields', useLoneSessionFields({ operations }), 'A hot document is a query of upstream fields (hot-documents.ts): it has no session field.'),
    // Cookie requests and logins pass the CSRF/origin check before anything acts for a browser (the
    // PDF download checked its Origin itself: a link sends no X-CSRF).
    sharedStep('CSRF check', csrf, ({ request, entry }) => (csrf.verdictOf(request, entry.executed)?.ok === false ? HAND_OVER : undefined)),
    // Who the request acts as (the strategies, in their order).
    sharedStep('identity', identity, async ({ request, entry, variables }) => {
      // A refusal, an anonymous caller or a strategy that threw: the pipeline's to answer.
      const verdict = await identity.verdictOf(request, entry.executed, variables ?? {}).catch(() => undefined);
      return verdict && 'identity' in verdict ? { identity: verdict.identity } : HAND_OVER;
    }),
    // A statement read's lookup starts now, overlapping the rate limit's round trip; it is read only
    // once every check passed (the read cache, below).
    sharedStep('read cache lookahead', readCache.lookahead, ({ request, entry, documentString, variables, operationName }, { identity: acting }) => {
      const scope = acting && reads.scopeOf(acting, acting.upstream, entry.executed, entry.document);
      if (!scope) return undefined;
      const key = readKey(scope.scope, documentString, variables, operationName);
      lookups.set(request, { scope, key, read: reads.lookAhead(request, key) });
      return undefined;
    }),
    // Rate limits: root fields per identity; root fields per address without one (login has its
    // own limits, in its resolver and the front's sign-in).
    sharedStep('session limit', sessionLimit, async ({ request, entry }, { identity: acting }) => {
      const key = acting?.rateLimitKey;
      if (key === undefined) return undefined;
      return (await sessionLimit.hit(request, key, entry.executed.fields.length)).allowed ? undefined : HAND_OVER;
    }),
    pipelineStep('anonymous limit', useAnonymousLimit({ limit: limits.anonymous, counters: rateLimits, log, metrics, operations, addresses, names: runtime.keys }),
      'The hot path answers identified callers only: its identity step hands an anonymous one to the pipeline before this step.'),
    // Mutations with an Idempotency-Key run at most once per identity and key: after every refusal
    // above (they keep nothing), before anything that may answer or call the upstream.
    pipelineStep('idempotency', idempotency, 'A request with an Idempotency-Key never takes the hot path (hot-body.ts: eligible), and a hot document is a query.'),
  ];

  // After every check: the request's document may be hot from now on (use-hot-documents.ts).
  const hotDocuments = hot ? [pipelineStep('hot documents', useHotDocuments({ hot, plans, definitions: answers, operations }), 'It makes the documents the hot path answers: a document the hot path answers is hot already.')] : [];

  const answering: ExecuteStep[] = [
    // Caches, only ever after the identity was validated: definitions hits answered from the bytes
    // of an earlier identical answer (no execution; on the hot path a miss is the pipeline's, which
    // keeps its answer).
    sharedStep('definitions answers', useDefinitionsAnswers({ answers, operations }), ({ entry, query, variables, operationName }, { identity: acting }) => {
      if (entry.plan !== 'definitions') return undefined;
      const found = acting && query !== undefined && answers.serves(acting, entry.executed) ? answers.hit(acting.upstream, { query, variables, operationName }, entry.executed) : undefined;
      return found ? { answer: { bytes: found.json } } : HAND_OVER;
    }),
    // Mutations invalidate the identity's cached reads and PDFs first.
    pipelineStep('cache invalidation', useCacheInvalidation({ store: caches.store, operations, outcomes }), 'Only a mutation invalidates, and a hot document is a query.'),
    // The fast path: an operation of upstream fields only (no PDF) is one upstream call, not Mesh's
    // delegation. Before the read cache, whose lookup wraps it.
    ...(fastPath
      ? [sharedStep('fast path', fastPath, ({ request, entry, variables, coerced, operationName }, { identity: acting }) => {
          const { plan } = entry;
          if (plan === 'definitions' || !acting) return HAND_OVER;
          const call = { request, identity: acting, upstream: acting.upstream, variables, coerced, operationName };
          return {
            execute: async () => {
              // Only the upstream's clean bytes are answered here; an answer with errors is the pipeline's.
              const { result, bytes } = await fastPath.forward(plan, call);
              return bytes === undefined ? HAND_OVER : { bytes, result };
            },
          };
        })]
      : []),
    // Statement reads answered per identity from the response cache: a hit with its stored bytes and
    // `Age`, a miss executed and its clean answer stored after it was sent.
    sharedStep('read cache', readCache, async ({ request }, { identity: acting, execute }) => {
      const lookup = lookups.get(request);
      if (!lookup) return undefined;
      const read = await lookup.read;
      const counted = (hit: boolean) => () => reads.counted(lookup.scope, hit, request);
      const stored = reads.storedIn(read, request.headers.get('cache-control'));
      if (stored) return { answer: { bytes: stored.bytes, age: ageOf(stored.storedAt, reads.now()), after: counted(true) } };
      if (!execute) return undefined;
      return {
        execute: async () => {
          const answered = await execute();
          if (answered === HAND_OVER) return answered;
          // Under the generation the lookup saw (read-cache.ts).
          if (answered.result && cleanResult(answered.result)) reads.write(lookup.key, read.generation, answered.result, reads.ttlFor(acting, reads.ttlMs), answered.bytes);
          return { ...answered, after: counted(false) };
        },
      };
    }),
  ];
  return [...checks, ...hotDocuments, ...answering];
}
