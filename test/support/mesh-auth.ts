/**
 * The gateway's sign-in and sign-out (src/gateway/mesh-auth.ts) for specs that build service
 * accounts or sessions themselves: Mesh built from `.mesh/` in this process, once per worker, with
 * no gateway plugins unless a spec adds its own.
 */
import path from 'node:path';
import type { GetMeshOptions } from '@graphql-mesh/runtime';
import { getMesh, type MeshInstance } from '@graphql-mesh/runtime';
import type { MeshPlugin } from '@graphql-mesh/types';
import type { UpstreamAuth } from '../../src/credentials/upstream-auth';
import { createLogger } from '../../src/observability/logger';
import { meshLogger } from '../../src/observability/mesh-logger';
import type { UpstreamFetch } from '../../src/upstream/fetch';
import { meshUpstreamAuth } from '../../src/gateway/mesh-auth';
import { UpstreamOutcomes } from '../../src/upstream/outcome';

const silent = meshLogger(createLogger({ level: 'silent' }));

/** Mesh from the build in `.mesh/` (global-setup.ts keeps it current), with these plugins. */
export async function specMesh(plugins: readonly MeshPlugin<unknown>[] = []): Promise<MeshInstance> {
  const artifacts = (await import(path.join(__dirname, '..', '..', '.mesh', 'index.ts'))) as { getMeshOptions(): Promise<GetMeshOptions> };
  const options = await artifacts.getMeshOptions();
  options.logger = silent;
  for (const source of options.sources) {
    const handler = source.handler as unknown as { logger?: unknown };
    if ('logger' in handler) handler.logger = silent;
  }
  options.additionalEnvelopPlugins = [...plugins];
  return getMesh(options);
}

let shared: Promise<MeshInstance> | undefined;

/** The gateway's UpstreamAuth over a Mesh shared by the worker's specs, built at the first call. */
export function specUpstreamAuth(upstreamFetch: UpstreamFetch, outcomes: UpstreamOutcomes = new UpstreamOutcomes()): UpstreamAuth {
  let built: Promise<UpstreamAuth> | undefined;
  const auth = () => (built ??= (shared ??= specMesh()).then((mesh) => meshUpstreamAuth(mesh, upstreamFetch, outcomes)));
  return {
    signIn: async (...args) => (await auth()).signIn(...args),
    signOut: async (...args) => (await auth()).signOut(...args),
  };
}
