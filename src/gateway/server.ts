/**
 * Builds and starts one gateway: the runtime (gateway/runtime.ts), Mesh from the `mesh build`
 * artifacts (gateway/mesh.ts), and two Yoga servers, one per product: the gateway's `/graphql` and
 * HTTP routes (gateway/plugins.ts) and the drop-in front (gateway/front-plugins.ts), chosen by the
 * request's path at the edge; they listen on PORT (gateway/listener.ts), and with OPS_PORT the
 * operator endpoints on a listener of their own (gateway/ops-listener.ts). Nothing is global: a
 * process may run several (tests do). `src/main.ts` is the CLI.
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import { createYoga, useSchema, type Plugin, type YogaServerOptions } from 'graphql-yoga';
import type { DestinationStream } from 'pino';
import type { GatewayConfig } from '../config';
import { isFrontPath } from '../drop-in/front-paths';
import { FRONT_BODY_LIMIT } from '../drop-in/front-limits';
import { frontSchemaOf } from '../drop-in/front-schema';
import { frontPlugins } from './front-plugins';
import { gatewayIdentities, gatewayPlugins } from './plugins';
import { definitionsAnswersOf, readCacheOf } from './cache-steps';
import { hotPathOptions } from './hot-path-options';
import { HotDocuments } from '../fast-path/hot-documents';
import { hotPath } from '../hot-path/hot-path';
import { publicSchema } from './public-schema';
import { drainable, type DrainOptions } from './drain';
import { listenAll } from './listener';
import { loadMesh, upstreamSourceSchema } from './mesh';
import { operatorEndpoints } from './ops-listener';
import { ROUTE_FIRST_SEGMENTS, routeTemplateOf } from './route-templates';
import { createGatewayRuntime, type GatewayRuntime } from './runtime';
import { bodyLimit, type BodyLimitRule } from '../http/body-limit';
import { corsFor } from '../http/cors';
import { edge } from '../http/edge';
import { createLogger } from '../observability/logger';
import { createRequestContexts } from '../observability/request-context';
import { meshLogger } from '../observability/mesh-logger';
import { createParseCaches } from '../protection/parse-caches';
import { readRequestTarget } from '../request/request-target';
import { createTraceContexts } from '../tracing/context';
import { traceRequests } from '../tracing/server-span';
import { topologyOf } from '../redis';
import type { EmbeddedUpstreams } from './embedded-upstreams';

export interface RunningGateway {
  readonly url: string;
  /** With OPS_PORT: where the probes, /metrics and /ops/ are served. */
  readonly opsUrl?: string;
  readonly runtime: GatewayRuntime;
  readonly embedded?: EmbeddedUpstreams;
  /**
   * SIGTERM's sequence (src/gateway/drain.ts) with SHUTDOWN_DELAY and SHUTDOWN_TIMEOUT, on every
   * listener, then Mesh and the runtime's connections closed.
   */
  drain(): Promise<void>;
  /** The same without the delay, and in-flight requests cut after 2 s: tests, Ctrl-C. */
  close(): Promise<void>;
}

/**
 * The edge's one decision: a request on one of the drop-in front's paths goes to the front's
 * pipeline, any other to the gateway's. The path is the one the edge checked
 * (src/request/request-target.ts), which every later reader reads alike.
 */
function byProduct(front: RequestListener, gateway: RequestListener): RequestListener {
  return (request, response) => {
    const target = readRequestTarget(request.url);
    return ('path' in target && isFrontPath(target.path) ? front : gateway)(request, response);
  };
}

/** The front's paths take the upstream's body limit and 413 (bulk statements), the others MAX_BODY_BYTES. */
function frontBodyLimit(request: IncomingMessage): BodyLimitRule | undefined {
  const target = readRequestTarget(request.url);
  return 'path' in target && isFrontPath(target.path) ? FRONT_BODY_LIMIT : undefined;
}

export interface StartOptions {
  readonly logDestination?: DestinationStream;
  /** MAX_CONNECTIONS (listener.ts) unless given: a test proves the cap with a few connections, not thousands. */
  readonly maxConnections?: number;
}

export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  // The request (and, with tracing, the spans) each piece of work belongs to: this gateway's own.
  const requests = createRequestContexts();
  const traces = createTraceContexts();
  const logger = createLogger({ level: config.logLevel, requests, traces, ...(options.logDestination ? { destination: options.logDestination } : {}) });
  const runtime = await createGatewayRuntime(config, logger, traces);
  const mesh = await loadMesh(runtime);
  // Trusted documents' plans are compiled now: their requests never parse, validate or plan.
  runtime.plans.precompile([...config.trustedDocuments.documents.values()].map((entry) => entry.document));

  const schema = publicSchema(mesh.schema);
  // Parsed documents and parse errors bounded in (estimated) bytes, not only in count, and shared:
  // the bound holds for the process, whichever product parsed them.
  const parserAndValidationCache = createParseCaches();
  // Mesh's plugins (schema, execution, the in-context SDK, its upstream calls), one product's
  // plugins, then the schema that product serves. Mesh's plugins hold no per-server state: both
  // servers share them (its in-context SDK is built once, for the first request of either).
  const serve = (plugins: Plugin[], served: GraphQLSchema, cors: YogaServerOptions<object, object>['cors']) => createYoga({
    plugins: [...mesh.plugins, ...plugins, useSchema(served)],
    // The same endpoint for both: Yoga's own route check (after the plugins) then sees a front path
    // as it sees `/graphql`; each product's useRoutes decides which paths it serves.
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/__yoga_health',
    landingPage: false,
    maskedErrors: false,
    batching: false,
    parserAndValidationCache,
    // bodyLimit (below) already refused a body over the limit before Yoga sees the request: a
    // chunked one counted as it arrived, one with Content-Length by that (Node's parser never reads
    // past it). Yoga's own check would pipe every body through a TransformStream, for nothing.
    maxRequestBodySize: false,
    logging: meshLogger(logger, 'yoga'),
    cors,
    // Yoga's GraphiQL loads from a CDN: the gateway serves its own, outside production
    // (src/ops/graphiql, in the plugin list).
    graphiql: false,
  });
  const identities = gatewayIdentities(runtime);
  // Probes on both ports; /metrics and /ops on OPS_PORT's listener when it is set (ops-listener.ts).
  const operators = operatorEndpoints(runtime);
  // The hot path's documents (src/hot-path/): with FAST_PATH and HOT_PATH, without tracing, whose
  // spans are the Yoga pipeline's (a traced gateway answers every request there).
  const hot = config.fastPath && config.hotPath && !runtime.tracing ? new HotDocuments(config.trustedDocuments.documents, runtime.plans, runtime.documents, { texts: !config.trustedDocuments.only }) : undefined;
  const reads = readCacheOf(runtime);
  const definitionsAnswers = definitionsAnswersOf(runtime);
  // ALLOWED_ORIGINS only, with credentials, on /graphql only (src/http/cors.ts).
  const pipeline = gatewayPlugins(runtime, { identities, reads, definitionsAnswers, operatorEndpoints: operators.onTrafficPort, ...(hot ? { hot } : {}) });
  const yoga = serve(pipeline.plugins as Plugin[], schema, corsFor(config.allowedOrigins));
  // The drop-in front serves the upstream's schema (src/drop-in/front-schema.ts), without CORS:
  // not even Yoga's 204 to OPTIONS, which the upstream answers 404 (the front answers that itself).
  const front = serve(frontPlugins(runtime) as Plugin[], frontSchemaOf(schema), false);

  // The PDF download's read goes through the gateway's whole pipeline, request hooks included.
  runtime.internalRequests.connect((request, serverContext) => yoga.handleRequest(request, serverContext));

  // The gateway's product: planned trusted documents on the hot path, everything else through Yoga.
  const gateway = hot ? hotPath(hotPathOptions(runtime, { hot, schema, steps: pipeline.steps, yoga }), yoga.requestListener) : yoga.requestListener;
  // On every port: every answer's headers and request id first and the request target checked
  // (edge.ts), then the body limit; with tracing, each request's SERVER span around all of it.
  const served = (next: RequestListener): RequestListener => {
    const edged = edge({ trustProxy: config.trustProxy, cookieSecure: config.cookieSecure, requests }, bodyLimit({ maxBytes: config.limits.maxBodyBytes, ruleFor: frontBodyLimit }, next));
    return runtime.tracing ? traceRequests(runtime.tracing, { routeOf: routeTemplateOf, firstSegments: ROUTE_FIRST_SEGMENTS }, edged) : edged;
  };
  const { opsListener } = operators;
  const listening = await listenAll(
    [
      { listener: served(byProduct(front.requestListener, gateway)), port: config.port },
      ...(opsListener ? [{ listener: served(opsListener.listener), port: opsListener.port }] : []),
    ],
    { host: config.host, maxBodyBytes: config.limits.maxBodyBytes, bodyLimitFor: frontBodyLimit, ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }) },
  ).catch(async (error: unknown) => {
    // A port that cannot be had (in use): nothing of this gateway is left open behind the error.
    mesh.destroy();
    await runtime.close();
    throw error;
  });
  const [{ url }, ops] = listening;
  const { upstreams, embedded } = runtime;
  runtime.log.gatewayStarted({
    url, ...(ops ? { opsUrl: ops.url } : {}), sessionStore: runtime.sessions.store.kind, cacheStore: runtime.caches.store.kind,
    sessionTopology: topologyOf(config.redis), cacheTopology: topologyOf(config.cacheRedis), serviceAccounts: runtime.serviceAccounts.count,
    upstreams: { sandbox: upstreams.sandbox.baseUrl, production: upstreams.production.baseUrl }, embedded: Boolean(embedded),
  });

  const drainer = drainable(listening.map((listener) => listener.server), runtime.lifecycle);
  runtime.lifecycle.serving();
  // The live upstream schemas against the one served, in the background (ops/upstream-schema-watch.ts).
  const servedUpstream = upstreamSourceSchema(mesh);
  if (servedUpstream) runtime.upstreamSchema.start(servedUpstream);
  let closing: Promise<void> | undefined;
  const stop = (options: DrainOptions) =>
    (closing ??= (async () => {
      await drainer.drain(options);
      mesh.destroy();
      await runtime.close();
    })());

  return {
    url, ...(ops ? { opsUrl: ops.url } : {}), runtime, ...(embedded ? { embedded } : {}),
    drain: () => stop(config.shutdown),
    close: () => stop({ delayMs: 0, timeoutMs: 2_000 }),
  };
}
