/**
 * The drop-in front's plugins ([/sandbox|/production]/v2/...), in order, each given only what it
 * uses: the front's own pipeline, with the upstream's schema, sharing the runtime's stores, limits,
 * logger and metrics with the gateway's (plugins.ts). The edge sends it only the front's paths.
 * What the gateway's list has and this one has not: the HTTP routes, cookies, trusted documents,
 * the CSRF check and idempotency keys (API clients of the upstream bring their own credential and
 * documents, and know none of those), and the anonymous limit (the front limits its anonymous
 * requests as it passes them through).
 */
import type { Plugin } from 'graphql-yoga';
import { useCacheInvalidation } from '../cache/use-cache-invalidation';
import { useDefinitionsAnswers } from '../cache/use-definitions-answers';
import { useReadCache } from '../cache/use-read-cache';
import { definitionsAnswersOf, readCacheOf } from './cache-steps';
import { frontAuditEntries } from '../drop-in/front-audit';
import { FRONT_GRAPHQL_PATHS } from '../drop-in/front-paths';
import { dropInStrategy, frontTarget } from '../drop-in/front-identity';
import { useDropInFront } from '../drop-in/use-drop-in-front';
import { useUpstreamErrorAnswers } from '../drop-in/use-upstream-error-answers';
import { FRONT_LIMITS } from '../drop-in/front-limits';
import { useErrorMapping } from '../http/use-error-mapping';
import { useFastPath } from '../fast-path/use-fast-path';
import { useRoutes } from '../http/use-routes';
import { useIdentity } from '../identity/use-identity';
import { useAccessLog } from '../observability/use-access-log';
import { useAuditLog } from '../audit/use-audit-log';
import { useGraphqlMetrics } from '../ops/use-metrics';
import { useClientAddress } from '../protection/client-address';
import { useDistinctValidationRules } from '../protection/use-distinct-validation-rules';
import { useQueryLimits } from '../protection/use-query-limits';
import { useRateLimits } from '../protection/use-rate-limits';
import { useOperationSpans } from '../tracing/use-operation-spans';
import type { GatewayContext } from './context';
import { useExecutedOperation } from '../request/executed';
import type { GatewayRuntime } from './runtime';
import { resolverServicesOf, sessionDependenciesOf, useResolverServices } from './use-resolver-services';

export function frontPlugins(runtime: GatewayRuntime): Plugin<GatewayContext>[] {
  const { config, log, metrics, clock, upstreams, upstreamFetch, caches, rateLimits, loginLimits } = runtime;
  const { limits } = config;
  const { documents } = runtime;
  const { operations, addresses, sessionCookies, outcomes, dropIn, startedAt, uid, onBehalfOf, servedNames } = runtime.requestState;
  const sessionDependencies = sessionDependenciesOf(runtime);
  const operationSpans = runtime.tracing ? useOperationSpans({ tracing: runtime.tracing, documents }) : undefined;
  // Statement reads per uid; its lookahead starts each lookup once the identity is known.
  const readCache = useReadCache({ cache: readCacheOf(runtime), operations });
  return [
    // The client's address (socket, or X-Forwarded-For within TRUST_PROXY), for limits and logs.
    useClientAddress({ trustProxy: config.trustProxy, addresses }),
    // The standard GraphQL metrics, on the gateway's registry.
    useGraphqlMetrics({ metrics }),
    // Every front request: the access log line.
    useAccessLog({ log, clock, startedAt, uid, operations, onBehalfOf, servedNames }),
    // Sign-in, sign-out and GraphQL without a verified credential passed through to the upstream and
    // answered here; a verified credential continues below, and its answers get the upstream's
    // credential headers (or refusal) on the way out.
    useDropInFront({ upstreams, upstreamFetch, verified: runtime.verifiedCredentials, limits, counters: rateLimits, names: runtime.keys, loginLimits, log, metrics, clock, uid, addresses, dropIn, cacheStore: caches.store }),
    // Only the front's GraphQL paths (useDropInFront sends only JSON bodies this far).
    useRoutes({ graphqlPaths: FRONT_GRAPHQL_PATHS }),
    // Validation: one copy of each rule (Yoga and Mesh both add graphql-js's rules).
    useDistinctValidationRules(),
    // /graphql's query limits, with the upstream's sizes (bulk statements: drop-in/front-limits.ts).
    // Introspection and field suggestions follow the upstream, which allows them (its schema is public).
    ...useQueryLimits({ introspection: limits.introspection, introspectionAllowed: () => true, fieldSuggestions: true, maxQueryBytes: FRONT_LIMITS.maxQueryBytes, tokens: FRONT_LIMITS.tokens, selections: FRONT_LIMITS.selections }),
    useResolverServices(resolverServicesOf(runtime, sessionDependencies)),
    // From here on, onExecute hooks read the executed operation and its root fields (found once).
    useExecutedOperation({ operations, documents }),
    // With tracing, the operation's span starts here (and ends after the audit log, below).
    ...(operationSpans ? [operationSpans.start] : []),
    // The client's verified credential is who the request acts as, in the environment its path or
    // X-Upstream-Environment names.
    useIdentity({
      strategies: [dropInStrategy({ upstreams, verified: runtime.verifiedCredentials, keys: runtime.keys, clock, dropIn })],
      production: config.production,
      defaultUpstream: (request) => frontTarget(upstreams, request),
      operations,
      uid,
    }),
    readCache.lookahead,
    // Root fields per credential, as for a browser session.
    useRateLimits({ limit: limits.session, counters: rateLimits, log, metrics, operations }),
    // Caches, as on /graphql: definitions hits, invalidation by mutations, statement reads per uid.
    useDefinitionsAnswers({ answers: definitionsAnswersOf(runtime), operations }),
    useCacheInvalidation({ store: caches.store, operations, outcomes }),
    // The fast path: an operation of upstream fields only (no PDF) is one upstream call. Before the
    // read cache, whose lookup wraps it.
    ...(config.fastPath ? [useFastPath({ plans: runtime.plans, forwarder: runtime.forwarder, operations })] : []),
    readCache,
    // A document the upstream refuses is answered as the upstream answers it (200, `locations`);
    // every other error gets a contract code and a safe message.
    useUpstreamErrorAnswers(),
    useErrorMapping({ log, metrics, operations, outcomes }),
    // After them: the audit trail, which reads the codes the client gets, and the front's own answers.
    useAuditLog({ log, cookieSecure: config.cookieSecure, readsCookies: false, answered: frontAuditEntries(dropIn), operations, addresses, sessionCookies }),
    ...(operationSpans ? [operationSpans.finish] : []),
  ] as Plugin<GatewayContext>[];
}
