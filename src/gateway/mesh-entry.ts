/**
 * The file `.meshrc.ts` names as `additionalEnvelopPlugins`. Mesh calls it at build time (no
 * runtime: no plugins, and no connection opened) and when the gateway starts (src/main.ts has
 * installed the runtime by then).
 */
import type { MeshPlugin } from '@graphql-mesh/types';
import { installedRuntime } from './runtime';
import { gatewayPlugins } from './plugins';
import type { GatewayContext } from './context';

export default function meshPlugins(): MeshPlugin<GatewayContext>[] {
  const runtime = installedRuntime();
  return runtime ? gatewayPlugins(runtime) : [];
}
