/**
 * The gateway's plugins, in order. Each entry is a factory; state lives in the runtime passed in.
 */
import type { MeshPlugin } from '@graphql-mesh/types';
import { useCacheInvalidation } from '../cache/use-cache-invalidation';
import { useDefinitionsAnswers } from '../cache/use-definitions-answers';
import { usePdfCache } from '../cache/use-pdf-cache';
import { useReadCache } from '../cache/use-read-cache';
import { FRONT_GRAPHQL_PATHS } from '../drop-in/front-paths';
import { useDropInFront } from '../drop-in/use-drop-in-front';
import { useQueryLimits } from '../protection/use-query-limits';
import { useAnonymousLimit } from '../protection/use-anonymous-limit';
import { useRateLimits } from '../protection/use-rate-limits';
import { useHealth } from '../observability/use-health';
import { createOpsAccess } from '../observability/ops/access';
import { useAuditLog } from '../observability/use-audit-log';
import { useGraphiQLPage } from '../observability/graphiql/use-graphiql-page';
import { useOpsPage } from '../observability/ops/use-ops-page';
import { useGraphqlMetrics, useMetricsEndpoint } from '../observability/use-metrics';
import type { GatewayRuntime } from './runtime';
import { stateOf, type GatewayContext } from './context';
import { useCredentialBroker } from '../upstream/use-credential-broker';
import { useDistinctValidationRules } from '../protection/use-distinct-validation-rules';
import { useErrorMapping } from '../errors/use-error-mapping';
import { useRoutes } from '../http/use-routes';
import { useSessionAuth } from '../identity/use-identity';

export function gatewayPlugins(runtime: GatewayRuntime): MeshPlugin<GatewayContext>[] {
  // /metrics and /ops: OPS_TOKEN when set, else loopback only.
  const opsAccess = createOpsAccess({ ...(runtime.config.opsToken ? { token: runtime.config.opsToken } : {}), trustProxy: runtime.config.trustProxy });
  return [
    // HTTP routes answered before any GraphQL work: liveness, readiness, metrics and /ops.
    useHealth({ runtime }) as MeshPlugin<GatewayContext>,
    useMetricsEndpoint({ metrics: runtime.metrics, access: opsAccess }) as MeshPlugin<GatewayContext>,
    // The /ops page and its data.
    useOpsPage({ metrics: runtime.metrics, access: opsAccess, clock: runtime.clock }) as MeshPlugin<GatewayContext>,
    // GraphiQL outside production, from the installed package (no CDN): the page at /graphql for
    // browsers, its assets under /graphiql/; in production both are 404.
    ...(runtime.config.production ? [] : [useGraphiQLPage({ title: 'Statement gateway', headers: { 'X-CSRF': '1' } }) as MeshPlugin<GatewayContext>]),
    // The standard GraphQL metrics (requests, phases, errors, HTTP durations) on the same registry.
    useGraphqlMetrics({ metrics: runtime.metrics }) as MeshPlugin<GatewayContext>,
    // The drop-in front ([/sandbox|/production]/v2/...): sign-in, sign-out and GraphQL without a
    // verified credential passed through; its GraphQL answers get the upstream's credential
    // headers (or refusal) on the way out.
    useDropInFront({ runtime }) as MeshPlugin<GatewayContext>,
    // Every other path but /graphql and the front's GraphQL paths is 404; POST bodies must be JSON (415 otherwise).
    useRoutes({ graphqlPaths: ['/graphql', ...FRONT_GRAPHQL_PATHS] }) as MeshPlugin<GatewayContext>,
    // Validation: one copy of each rule (Yoga and Mesh both add graphql-js's rules).
    useDistinctValidationRules() as MeshPlugin<GatewayContext>,
    // Query limits (text length before parsing; tokens while parsing; depth, aliases,
    // directives, cost while validating; PDFs per answer before executing). Introspection on the
    // front follows the upstream, which allows it (its schema is public).
    ...(useQueryLimits({
      introspection: runtime.config.limits.introspection,
      introspectionAllowed: (request) => stateOf(request)?.dropIn !== undefined,
      maxQueryBytes: runtime.config.limits.maxQueryBytes,
    }) as MeshPlugin<GatewayContext>[]),
    // Who the request acts as: CSRF/origin check, session lookup, anonymous allow-list;
    // also sets the session cookie on the way out and writes the access log.
    useSessionAuth({ runtime }) as MeshPlugin<GatewayContext>,
    // Rate limits: root fields per identity; root fields per address without one (login has its
    // own limits, in its resolver and the front's sign-in).
    useRateLimits({ runtime }) as MeshPlugin<GatewayContext>,
    useAnonymousLimit({ runtime }) as MeshPlugin<GatewayContext>,
    // Caches, only ever after the session was validated: mutations invalidate first, then
    // statement reads may be answered per identity from the response cache.
    // Definitions hits answered from the bytes of an earlier identical answer (no execution).
    useDefinitionsAnswers({ runtime }) as MeshPlugin<GatewayContext>,
    useCacheInvalidation({ runtime }) as MeshPlugin<GatewayContext>,
    useReadCache({ runtime }) as MeshPlugin<GatewayContext>,
    // Upstream calls: the session's credential in, rotated tokens kept, 401 ends the session.
    useCredentialBroker({ runtime }),
    // Around the brokered call: PDFs per identity and statement from the PDF cache.
    usePdfCache({ runtime }),
    // Last: every error the client sees gets a contract code and a safe message.
    useErrorMapping({ runtime }) as MeshPlugin<GatewayContext>,
    // After it: the audit trail reads the codes the client gets (mutations, logins, refusals).
    useAuditLog({ log: runtime.log, trustProxy: runtime.config.trustProxy }) as MeshPlugin<GatewayContext>,
  ];
}
