/**
 * Mesh, loaded from the `mesh build` artifacts (.mesh/) with this gateway's logger and the plugins
 * on its upstream calls, then wired to the runtime: the sign-in and sign-out on the SignIn
 * source's own schema (mesh-auth.ts), and the upstream's schema for the fast path's plans.
 */
import path from 'node:path';
import type { MeshFetch } from '@graphql-mesh/types';
import type { GraphQLSchema } from 'graphql';
import { getMesh, type GetMeshOptions, type MeshInstance } from '@graphql-mesh/runtime';
import { fetch as undiciFetch, type Dispatcher, type RequestInit as UndiciRequestInit } from 'undici';
import { meshLogger } from '../observability/mesh-logger';
import { meshUpstreamAuth } from './mesh-auth';
import type { GatewayRuntime } from './runtime';
import { upstreamCallPlugins } from './upstream-call-plugins';

interface MeshArtifacts {
  getMeshOptions(): Promise<GetMeshOptions>;
}

const ROOT = path.resolve(__dirname, '..', '..');

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

/**
 * Mesh's own fetch through the egress proxy. Every upstream call the gateway knows of goes through
 * the credential broker's fetch (identity/use-credential-broker.ts) or mesh-auth.ts's; this is the
 * default a call would fall back to outside both, so that not even that one leaves by another way.
 * undici's fetch answers with undici's Response, the same class as Node's global one at run time.
 */
function fetchThrough(dispatcher: Dispatcher): MeshFetch {
  return async (url, init) => (await undiciFetch(url, { ...init, dispatcher } as UndiciRequestInit)) as unknown as Response;
}

/** Mesh's options from the build, with this gateway's logger and the plugins on its upstream calls. */
export async function meshOptionsFor(runtime: GatewayRuntime): Promise<GetMeshOptions> {
  const options = await (await loadMeshArtifacts()).getMeshOptions();
  options.logger = meshLogger(runtime.logger);
  // The handlers were given Mesh's console logger by the generated code: use ours instead.
  for (const source of options.sources) {
    const handler = source.handler as unknown as { logger?: unknown };
    if ('logger' in handler) handler.logger = meshLogger(runtime.logger, `mesh.${source.name}`);
  }
  // Mesh takes its fetch hooks from these alone; each product's own plugins go to its Yoga (server.ts).
  options.additionalEnvelopPlugins = [...(options.additionalEnvelopPlugins ?? []), ...upstreamCallPlugins(runtime)];
  if (runtime.upstreamDispatcher) options.fetchFn = fetchThrough(runtime.upstreamDispatcher);
  return options;
}

/** The upstream's schema as this Mesh build serves it (its GraphQL source's, before the gateway's own fields). */
export function upstreamSourceSchema(mesh: Pick<MeshInstance, 'rawSources'>): GraphQLSchema | undefined {
  return mesh.rawSources.find((source) => source.name === UPSTREAM_SOURCE)?.schema;
}

/** Mesh built for this gateway, its sign-in and sign-out connected, its upstream schema told to the fast path. */
export async function loadMesh(runtime: GatewayRuntime): Promise<MeshInstance> {
  const mesh = await getMesh(await meshOptionsFor(runtime));
  // Sign-in and sign-out upstream (login, logout, service accounts): Mesh's hidden REST operations.
  runtime.upstreamAuth.connect(meshUpstreamAuth(mesh, runtime.upstreamFetch, runtime.requestState.outcomes));
  // The fast path forwards operations of the upstream source's own fields (src/fast-path/).
  const upstream = upstreamSourceSchema(mesh);
  if (upstream) runtime.plans.learnUpstream(upstream);
  return mesh;
}
