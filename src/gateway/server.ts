/**
 * Builds and starts one gateway: the runtime (gateway/runtime.ts), the Mesh schema from the
 * `mesh build` artifacts, and two Yoga servers over one Node http server, one per product: the
 * gateway's `/graphql` and HTTP routes (gateway/plugins.ts) and the drop-in front
 * (gateway/front-plugins.ts), chosen by the request's path at the edge. Nothing is global: a
 * process may run several (tests do). `src/main.ts` is the CLI.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { GetMeshOptions } from '@graphql-mesh/runtime';
import { getMesh } from '@graphql-mesh/runtime';
import type { GraphQLSchema } from 'graphql';
import { createYoga, useSchema, type Plugin, type YogaServerOptions } from 'graphql-yoga';
import type { DestinationStream } from 'pino';
import type { GatewayConfig } from '../config';
import { isFrontPath } from '../drop-in/front-paths';
import { frontSchemaOf } from '../drop-in/front-schema';
import { frontPlugins } from './front-plugins';
import { gatewayIdentities, gatewayPlugins } from './plugins';
import { definitionsAnswersOf, readCacheOf } from './cache-steps';
import { hotPathOptions } from './hot-path-options';
import { HotDocuments } from '../fast-path/hot-documents';
import { hotPath } from '../http/hot-path';
import { upstreamCallPlugins } from './upstream-call-plugins';
import { publicSchema } from './public-schema';
import { drainable, type DrainOptions } from './drain';
import { routeTemplateOf } from './route-templates';
import { createGatewayRuntime, type GatewayRuntime } from './runtime';
import { bodyLimit, continueWithinLimit } from '../http/body-limit';
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
import { meshUpstreamAuth } from './mesh-auth';
import type { EmbeddedUpstreams } from './embedded-upstreams';

export interface RunningGateway {
  readonly url: string;
  readonly runtime: GatewayRuntime;
  readonly embedded?: EmbeddedUpstreams;
  /**
   * SIGTERM's sequence (src/gateway/drain.ts) with SHUTDOWN_DELAY and SHUTDOWN_TIMEOUT, then Mesh
   * and the runtime's connections closed.
   */
  drain(): Promise<void>;
  /** The same without the delay, and in-flight requests cut after 2 s: tests, Ctrl-C. */
  close(): Promise<void>;
}

interface MeshArtifacts {
  getMeshOptions(): Promise<GetMeshOptions>;
}

const ROOT = path.resolve(__dirname, '..', '..');
/** Open connections one replica accepts (`server.maxConnections`). */
export const MAX_CONNECTIONS = 4_096;

/** The upstream GraphQL source's name in .meshrc.ts. */
const UPSTREAM_SOURCE = 'StatementFilingService';

async function loadMeshArtifacts(): Promise<MeshArtifacts> {
  // `index.ts` from the checkout (tsx), `index.js` from dist/, compiled with this file.
  const file = path.join(ROOT, '.mesh', `index${path.extname(__filename)}`);
  try {
    return (await import(file)) as MeshArtifacts;
  } catch (error) {
    throw new Error(`Cannot load the Mesh build in .mesh/ (run \`npm run build:mesh\`): ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Mesh's options from the build, with this gateway's logger and the plugins on its upstream calls. */
async function meshOptionsFor(runtime: GatewayRuntime): Promise<GetMeshOptions> {
  const options = await (await loadMeshArtifacts()).getMeshOptions();
  options.logger = meshLogger(runtime.logger);
  // The handlers were given Mesh's console logger by the generated code: use ours instead.
  for (const source of options.sources) {
    const handler = source.handler as unknown as { logger?: unknown };
    if ('logger' in handler) handler.logger = meshLogger(runtime.logger, `mesh.${source.name}`);
  }
  // Mesh takes its fetch hooks from these alone; each product's own plugins go to its Yoga (below).
  options.additionalEnvelopPlugins = [...(options.additionalEnvelopPlugins ?? []), ...upstreamCallPlugins(runtime)];
  return options;
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

export interface StartOptions {
  readonly logDestination?: DestinationStream;
  /** MAX_CONNECTIONS unless given: a test proves the cap with a few connections, not thousands. */
  readonly maxConnections?: number;
}

export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<RunningGateway> {
  // The request (and, with tracing, the spans) each piece of work belongs to: this gateway's own.
  const requests = createRequestContexts();
  const traces = createTraceContexts();
  const logger = createLogger({ level: config.logLevel, requests, traces, ...(options.logDestination ? { destination: options.logDestination } : {}) });
  const runtime = await createGatewayRuntime(config, logger, traces);
  const mesh = await getMesh(await meshOptionsFor(runtime));
  // Sign-in and sign-out upstream (login, logout, service accounts): Mesh's hidden REST operations.
  runtime.upstreamAuth.connect(meshUpstreamAuth(mesh, runtime.upstreamFetch, runtime.requestState.outcomes));

  // The fast path forwards operations of the upstream source's own fields (src/fast-path/).
  const upstreamSource = mesh.rawSources.find((source) => source.name === UPSTREAM_SOURCE);
  if (upstreamSource) runtime.plans.learnUpstream(upstreamSource.schema);
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
  // The hot path's documents (src/http/hot-path.ts): with FAST_PATH and HOT_PATH, without tracing, whose
  // spans are the Yoga pipeline's (a traced gateway answers every request there).
  const hot = config.fastPath && config.hotPath && !runtime.tracing ? new HotDocuments(config.trustedDocuments.documents, runtime.plans, runtime.documents, { texts: !config.trustedDocuments.only }) : undefined;
  const reads = readCacheOf(runtime);
  const definitionsAnswers = definitionsAnswersOf(runtime);
  // ALLOWED_ORIGINS only, with credentials, on /graphql only (src/http/cors.ts).
  const yoga = serve(gatewayPlugins(runtime, { identities, reads, definitionsAnswers, ...(hot ? { hot } : {}) }) as Plugin[], schema, corsFor(config.allowedOrigins));
  // The drop-in front serves the upstream's schema (src/drop-in/front-schema.ts), without CORS:
  // not even Yoga's 204 to OPTIONS, which the upstream answers 404 (the front answers that itself).
  const front = serve(frontPlugins(runtime) as Plugin[], frontSchemaOf(schema), false);

  // The PDF download's read goes through the gateway's whole pipeline, request hooks included.
  runtime.internalRequests.connect((request, serverContext) => yoga.handleRequest(request, serverContext));

  // Every answer's headers and request id first (edge.ts), then the body limit, then Yoga.
  // The gateway's product: planned trusted documents on the hot path, everything else through Yoga.
  const gateway = hot ? hotPath(hotPathOptions(runtime, { hot, schema, identities, reads, definitionsAnswers, yoga }), yoga.requestListener) : yoga.requestListener;
  const edged = edge({ trustProxy: config.trustProxy, cookieSecure: config.cookieSecure, requests }, bodyLimit({ maxBytes: config.limits.maxBodyBytes }, byProduct(front.requestListener, gateway)));
  // With tracing, each request's SERVER span around all of it (src/tracing/).
  const listener = runtime.tracing ? traceRequests(runtime.tracing, { routeOf: routeTemplateOf }, edged) : edged;
  const server: Server = createServer(
    {
      // Slow clients: the headers within 10 s, the whole request within 30 s. Node checks both
      // deadlines every connectionsCheckingInterval (30 s by default, so a client dripping header
      // bytes kept its connection up to 40 s): every second, a connection is closed (408) within
      // a second of its deadline.
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      connectionsCheckingInterval: 1_000,
    },
    listener,
  );
  server.on('checkContinue', continueWithinLimit(config.limits.maxBodyBytes, listener));
  server.keepAliveTimeout = 65_000;
  // Open connections per replica, idle keep-alive ones included: past it new ones are closed at
  // once, so a flood of slow or idle connections runs into this rather than file descriptors and
  // memory. Far above what one replica serves behind the proxy (whose limit_conn is per address).
  server.maxConnections = options.maxConnections ?? MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  const url = `http://${host}:${port}`;
  const { upstreams, embedded } = runtime;
  runtime.log.gatewayStarted({
    url, sessionStore: runtime.sessions.store.kind, cacheStore: runtime.caches.store.kind,
    sessionTopology: topologyOf(config.redis), cacheTopology: topologyOf(config.cacheRedis), serviceAccounts: runtime.serviceAccounts.count,
    upstreams: { sandbox: upstreams.sandbox.baseUrl, production: upstreams.production.baseUrl }, embedded: Boolean(embedded),
  });

  const drainer = drainable(server, runtime.lifecycle);
  runtime.lifecycle.serving();
  let closing: Promise<void> | undefined;
  const stop = (options: DrainOptions) =>
    (closing ??= (async () => {
      await drainer.drain(options);
      mesh.destroy();
      await runtime.close();
    })());

  return {
    url, runtime, ...(embedded ? { embedded } : {}),
    drain: () => stop(config.shutdown),
    close: () => stop({ delayMs: 0, timeoutMs: 2_000 }),
  };
}
