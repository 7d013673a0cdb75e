/**
 * The plugins of the gateway's own product (`/graphql` and the HTTP routes), in order, each given
 * only what it uses: the runtime is unpacked here once. The order is the pipeline: HTTP routes
 * answered before any GraphQL work, then limits, who the request acts as, caches, and the last
 * word on errors. The drop-in front has its own list (front-plugins.ts); the plugins on Mesh's
 * upstream calls are Mesh's (upstream-call-plugins.ts).
 */
import type { Plugin } from 'graphql-yoga';
import { useCacheInvalidation } from '../cache/use-cache-invalidation';
import { useDefinitionsAnswers } from '../cache/use-definitions-answers';
import { useReadCache } from '../cache/use-read-cache';
import type { ReadCache } from '../cache/read-cache';
import type { DefinitionsAnswers } from '../cache/definitions-answers';
import { serviceAccountStrategy } from '../credentials/service-account-identity';
import { useTrustedDocuments } from '../documents/use-trusted-documents';
import { useFastPath } from '../fast-path/use-fast-path';
import type { HotDocuments } from '../fast-path/hot-documents';
import type { IdentityStrategy } from '../identity/strategy';
import { useErrorMapping } from '../http/use-error-mapping';
import { usePdfDownloads } from '../http/use-pdf-downloads';
import { useRoutes } from '../http/use-routes';
import { useIdempotency } from '../idempotency/use-idempotency';
import { queryTextRefusal } from '../identity/query-texts';
import { useIdentity } from '../identity/use-identity';
import { graphiqlInstalled, useGraphiQLPage } from '../ops/graphiql/use-graphiql-page';
import { createOpsAccess } from '../ops/access';
import { useOpsPage } from '../ops/use-ops-page';
import { useAccessLog } from '../observability/use-access-log';
import { useAuditLog } from '../audit/use-audit-log';
import { useHealth } from '../ops/use-health';
import { useGraphqlMetrics, useMetricsEndpoint } from '../ops/use-metrics';
import { useClientAddress } from '../protection/client-address';
import { useAnonymousLimit } from '../protection/use-anonymous-limit';
import { useDistinctValidationRules } from '../protection/use-distinct-validation-rules';
import { useQueryLimits } from '../protection/use-query-limits';
import { useRateLimits } from '../protection/use-rate-limits';
import { browserSessionStrategy } from '../session/session-identity';
import { useSessionCookies } from '../session/cookie-jar';
import { environmentNamed } from '../environment';
import { useCsrf } from '../session/use-csrf';
import { useLoneSessionFields } from '../session/use-lone-session-fields';
import { useOperationSpans } from '../tracing/use-operation-spans';
import type { GatewayContext } from './context';
import { useExecutedOperation } from '../request/executed';
import type { GatewayRuntime } from './runtime';
import { resolverServicesOf, sessionDependenciesOf, useResolverServices } from './use-resolver-services';

/** Who a request to the gateway's product acts as, in this order: the session cookie, an API key. */
export function gatewayIdentities(runtime: GatewayRuntime): IdentityStrategy[] {
  const { rateLimits, upstreams, log, metrics } = runtime;
  return [
    browserSessionStrategy(sessionDependenciesOf(runtime)),
    serviceAccountStrategy({ serviceAccounts: runtime.serviceAccounts, rateLimits, upstreams, log, metrics }),
  ];
}

export interface GatewayPluginsOptions {
  /** gatewayIdentities(runtime), shared with the hot path. */
  readonly identities: readonly IdentityStrategy[];
  /** The trusted documents the hot path may answer, once this pipeline has run them. */
  readonly hot?: HotDocuments;
  /** The read cache's steps (cache-steps.ts), shared with the hot path. */
  readonly reads: ReadCache;
  /** The definitions answers' steps (cache-steps.ts), shared with the hot path. */
  readonly definitionsAnswers: DefinitionsAnswers;
}

export function gatewayPlugins(runtime: GatewayRuntime, { identities, hot, reads, definitionsAnswers }: GatewayPluginsOptions): Plugin<GatewayContext>[] {
  const { config, log, metrics, clock, upstreams, caches, rateLimits } = runtime;
  const { limits } = config;
  const { documents } = runtime;
  const { operations, addresses, setCookies, sessionCookies, outcomes, startedAt, uid, onBehalfOf, servedNames, idempotencyMarks } = runtime.requestState;
  const { decidedIdentities, decidedLimits, forwardedAnswers } = runtime.requestState;
  const sessionDependencies = sessionDependenciesOf(runtime);
  // /metrics and /ops: OPS_TOKEN when set, else loopback only.
  const opsAccess = createOpsAccess({ ...(config.opsToken ? { token: config.opsToken } : {}), trustProxy: config.trustProxy });
  const operationSpans = runtime.tracing ? useOperationSpans({ tracing: runtime.tracing, documents }) : undefined;
  // GraphQL requests the gateway builds itself (the PDF download's read), exempt from the checks
  // only a client's own request needs.
  const internal = runtime.internalRequests;
  const isInternal = (request: Request) => internal.has(request);
  // Mutations with an Idempotency-Key run at most once per identity and key (src/idempotency/).
  const idempotency = useIdempotency({
    store: runtime.idempotency, keys: runtime.keys, ttlMs: config.idempotency.ttlMs, maxBytes: config.idempotency.maxBytes,
    // A claim is renewed while its request runs; a replica gone mid-request leaves it this long.
    leaseMs: config.upstreamTimeoutMs + 10_000,
    health: runtime.sessionStoreHealth, metrics, log, clock, operations, documents, outcomes, marks: idempotencyMarks,
  });
  // Statement reads per identity; its lookahead starts each lookup once the identity is known.
  const readCache = useReadCache({ cache: reads, operations });
  const plugins: Plugin<GatewayContext>[] = [
    // The client's address (socket, or X-Forwarded-For within TRUST_PROXY), for limits and logs.
    useClientAddress({ trustProxy: config.trustProxy, addresses }),
    // HTTP routes answered before any GraphQL work: liveness, readiness, metrics and /ops.
    useHealth({ dependencies: runtime.dependencies, lifecycle: runtime.lifecycle, metrics }),
    useMetricsEndpoint({ metrics, access: opsAccess }),
    useOpsPage({ metrics, access: opsAccess, clock }),
    // GraphiQL outside production, from the installed package (no CDN, a development dependency):
    // the page at /graphql for browsers, its assets under /graphiql/; in production both are 404.
    ...(config.production || !graphiqlInstalled() ? [] : [useGraphiQLPage({ title: 'Statement gateway', headers: { 'X-CSRF': '1' } })]),
    // The standard GraphQL metrics (requests, phases, errors, HTTP durations) on the same registry.
    useGraphqlMetrics({ metrics }),
    // An idempotent mutation's kept answer in place (and a new one kept) before any other hook reads the answer.
    idempotency.responses,
    // Every request from here on: the access log line, and the session cookie's Set-Cookie headers.
    useAccessLog({ log, clock, startedAt, uid, operations, onBehalfOf, servedNames }),
    useSessionCookies({ setCookies }),
    // GET /statements/{otxId}/pdf: the `pdf` field read through this same pipeline, as a file.
    usePdfDownloads({ internal, allowedOrigins: config.allowedOrigins, trustProxy: config.trustProxy, log, onBehalfOf }),
    // Every other path but /graphql is 404; POST bodies must be JSON (415 otherwise).
    useRoutes({ graphqlPaths: ['/graphql'] }),
    // Validation: one copy of each rule (Yoga and Mesh both add graphql-js's rules).
    useDistinctValidationRules(),
    // Trusted documents: a documentId or APQ hash names a document of TRUSTED_DOCUMENTS_FILE, parsed
    // at start; with TRUSTED_DOCUMENTS_ONLY, browser sessions and anonymous callers send nothing
    // else, refused before their text is parsed.
    useTrustedDocuments({
      documents: config.trustedDocuments.documents,
      ...(config.trustedDocuments.only ? { queryTextRefusal: queryTextRefusal(identities) } : {}),
      exempt: isInternal,
    }),
    // Query limits (text length before parsing; tokens while parsing; depth, aliases,
    // directives, cost while validating; PDFs per answer before executing).
    ...useQueryLimits({ introspection: limits.introspection, maxQueryBytes: limits.maxQueryBytes }),
    useResolverServices(resolverServicesOf(runtime, sessionDependencies)),
    // From here on, onExecute hooks read the executed operation and its root fields (found once).
    useExecutedOperation({ operations, documents }),
    // With tracing, the operation's span starts here (and ends after the audit log, below).
    ...(operationSpans ? [operationSpans.start] : []),
    // login, logout (and the other session fields) alone in their operation, before anything of it runs.
    useLoneSessionFields({ operations }),
    // Cookie requests and logins pass the CSRF/origin check before anything acts for a browser (the
    // PDF download checked its Origin itself: a link sends no X-CSRF).
    useCsrf({ allowedOrigins: config.allowedOrigins, trustProxy: config.trustProxy, cookieSecure: config.cookieSecure, log, exempt: isInternal, operations, sessionCookies }),
    // Who the request acts as (the strategies above, in their order). An anonymous request's calls
    // (confirmRegistration) go to the sandbox, or where X-Upstream-Environment says.
    useIdentity({
      strategies: identities,
      production: config.production,
      defaultUpstream: (request) => upstreams[environmentNamed(request.headers.get('x-upstream-environment'))],
      operations,
      uid,
      decided: decidedIdentities,
    }),
    // Rate limits: root fields per identity; root fields per address without one (login has its
    // own limits, in its resolver and the front's sign-in).
    readCache.lookahead,
    useRateLimits({ limit: limits.session, counters: rateLimits, log, metrics, operations, decided: decidedLimits }),
    useAnonymousLimit({ limit: limits.anonymous, counters: rateLimits, log, metrics, operations, addresses, names: runtime.keys }),
    // Mutations with an Idempotency-Key run at most once per identity and key: after every refusal
    // above (they keep nothing), before anything that may answer or call the upstream.
    idempotency.execution,
    // Caches, only ever after the identity was validated: definitions hits answered from the bytes
    // of an earlier identical answer (no execution); mutations invalidate first, then statement
    // reads may be answered per identity from the response cache.
    useDefinitionsAnswers({ answers: definitionsAnswers, operations, ...(hot ? { executed: (executed, text) => hot.executed(executed, 'definitions', text) } : {}) }),
    useCacheInvalidation({ store: caches.store, operations, outcomes }),
    // The fast path: an operation of upstream fields only (no PDF) is one upstream call, not Mesh's
    // delegation. Before the read cache, whose lookup wraps it.
    ...(config.fastPath ? [useFastPath({ plans: runtime.plans, forwarder: runtime.forwarder, operations, ...(hot ? { hot } : {}), handedOver: forwardedAnswers })] : []),
    readCache,
    // Last: every error the client sees gets a contract code and a safe message.
    useErrorMapping({ log, metrics, operations, outcomes }),
    // After it: the audit trail reads the codes the client gets (mutations, logins, refusals).
    useAuditLog({ log, cookieSecure: config.cookieSecure, operations, addresses, sessionCookies, idempotencyMarks }),
    ...(operationSpans ? [operationSpans.finish] : []),
  ] as Plugin<GatewayContext>[];
  return plugins;
}
