/**
 * The plugins of the gateway's own product (`/graphql` and the HTTP routes), in order, each given
 * only what it uses: the runtime is unpacked here once. The order is the pipeline: HTTP routes
 * answered before any GraphQL work, then limits, the execute steps (execute-steps.ts: who the
 * request acts as, its limits, caches, the fast path, in the one list the hot path walks too), and
 * the last word on errors. The drop-in front has its own list (front-plugins.ts); the plugins on
 * Mesh's upstream calls are Mesh's (upstream-call-plugins.ts).
 *
 * Every onExecute plugin here is an execute step (execute-step.ts): those of execute-steps.ts, and
 * the few whose other hooks place them elsewhere in this list, each with why the hot path does
 * without it (test/gateway/execute-steps.unit.test.ts).
 */
import type { Plugin } from 'graphql-yoga';
import { serviceAccountStrategy } from '../credentials/service-account-identity';
import { useTrustedDocuments } from '../documents/use-trusted-documents';
import type { DefinitionsAnswers } from '../cache/definitions-answers';
import type { ReadCache } from '../cache/read-cache';
import type { HotDocuments } from '../fast-path/hot-documents';
import type { IdentityStrategy } from '../identity/strategy';
import { useErrorMapping } from '../http/use-error-mapping';
import { usePdfDownloads } from '../http/use-pdf-downloads';
import { useRoutes } from '../http/use-routes';
import { useIdempotency } from '../idempotency/use-idempotency';
import { queryTextRefusal } from '../identity/query-texts';
import { graphiqlInstalled, useGraphiQLPage } from '../ops/graphiql/use-graphiql-page';
import { useOpsEndpoint, type OpsEndpoint } from '../ops/endpoint';
import { useAccessLog } from '../observability/use-access-log';
import { useAuditLog } from '../audit/use-audit-log';
import { useGraphqlMetrics } from '../ops/use-metrics';
import { useClientAddress } from '../protection/client-address';
import { useDistinctValidationRules } from '../protection/use-distinct-validation-rules';
import { usePdfAnswerLimit } from '../protection/pdf-answer-limit';
import { useQueryLimits } from '../protection/use-query-limits';
import { browserSessionStrategy } from '../session/session-identity';
import { useSessionCookies } from '../session/cookie-jar';
import { useOperationSpans } from '../tracing/use-operation-spans';
import type { GatewayContext } from './context';
import { isExecuteStep, pipelineStep, type ExecuteStep } from './execute-step';
import { gatewayExecuteSteps } from './execute-steps';
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
  /** gatewayIdentities(runtime). */
  readonly identities: readonly IdentityStrategy[];
  /** The documents the hot path answers, when it runs (server.ts). */
  readonly hot?: HotDocuments;
  /** The read cache's steps (cache-steps.ts). */
  readonly reads: ReadCache;
  /** The definitions answers' steps (cache-steps.ts). */
  readonly definitionsAnswers: DefinitionsAnswers;
  /** The operator endpoints this port serves (ops-listener.ts: all of them, or the probes alone with OPS_PORT). */
  readonly operatorEndpoints: readonly OpsEndpoint[];
}

export interface GatewayPipeline {
  /** What the gateway's Yoga server is given, in order. */
  readonly plugins: Plugin<GatewayContext>[];
  /** Every plugin of `plugins` with an onExecute hook, as execute steps, in the same order. */
  readonly steps: readonly ExecuteStep[];
}

export function gatewayPlugins(runtime: GatewayRuntime, { identities, hot, reads, definitionsAnswers, operatorEndpoints }: GatewayPluginsOptions): GatewayPipeline {
  const { config, log, metrics, clock } = runtime;
  const { limits } = config;
  const { documents } = runtime;
  const { operations, addresses, setCookies, sessionCookies, outcomes, startedAt, uid, onBehalfOf, servedNames, idempotencyMarks } = runtime.requestState;
  const sessionDependencies = sessionDependenciesOf(runtime);
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
  const executeSteps = gatewayExecuteSteps(runtime, { identities, hot, reads, definitionsAnswers, idempotency: idempotency.execution, spanStart: operationSpans?.start, isInternal });
  const entries = [
    // The client's address (socket, or X-Forwarded-For within TRUST_PROXY), for limits and logs.
    useClientAddress({ trustProxy: config.trustProxy, addresses }),
    // HTTP routes answered before any GraphQL work: liveness, readiness, and (without OPS_PORT)
    // metrics and /ops.
    ...operatorEndpoints.map((endpoint) => useOpsEndpoint(endpoint)),
    // GraphiQL outside production, from the installed package (no CDN, a development dependency):
    // the page at /graphql for browsers, its assets under /graphiql/; in production both are 404.
    ...(config.production || !graphiqlInstalled() ? [] : [useGraphiQLPage({ title: 'Statement gateway', headers: { 'X-CSRF': '1' } })]),
    // The standard GraphQL metrics (requests, phases, errors, HTTP durations) on the same registry.
    pipelineStep('GraphQL metrics', useGraphqlMetrics({ metrics }), 'The hot path moves the same series itself (served-metrics.ts), for the clean answers it gives.'),
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
    ...useQueryLimits({ introspection: limits.introspection, maxQueryBytes: limits.maxQueryBytes, pdfAnswerLimit: false }),
    pipelineStep('PDFs per answer', usePdfAnswerLimit(), 'A hot document selects no PDF (hot-documents.ts): for it this limit decides nothing.'),
    useResolverServices(resolverServicesOf(runtime, sessionDependencies)),
    // The execute steps: the executed operation, CSRF, identity, limits, idempotency, caches and the
    // fast path (execute-steps.ts).
    ...executeSteps,
    // Last: every error the client sees gets a contract code and a safe message.
    useErrorMapping({ log, metrics, operations, outcomes }),
    // After it: the audit trail reads the codes the client gets (mutations, logins, refusals).
    pipelineStep('audit log', useAuditLog({ log, cookieSecure: config.cookieSecure, operations, addresses, sessionCookies, idempotencyMarks }),
      'It writes lines for mutations, logins, logouts and refusals: the hot path answers none of those (a refusal is handed to the pipeline).'),
    ...(operationSpans ? [operationSpans.finish] : []),
  ] as (Plugin<GatewayContext> | ExecuteStep)[];
  const steps = entries.filter(isExecuteStep);
  return { plugins: entries.map((entry) => (isExecuteStep(entry) ? entry.plugin : entry)), steps };
}
