/**
 * The folders of src/ are layers with one direction: a file imports only from its own folder or
 * from a folder below its own in LAYERS (type-only imports included: a type names a dependency
 * as much as a value does). The list is the layout's map: a newcomer reads it bottom-up, and a new
 * folder or root file must be placed in it before anything can import it. docs/architecture.md
 * ("Layout") and the README list the folders in the same order.
 */
import { describe, expect, it } from 'vitest';
import { readSourceGraph } from '../../scripts/source-graph';

/** Bottom first. A unit is a folder under src/, or a file directly in src/. */
const LAYERS: readonly (readonly string[])[] = [
  // The vocabulary and the configuration, read and validated before anything else exists.
  ['environment.ts', 'node-version.ts'],
  ['config'],
  // Client-facing errors and the JSON answer every layer builds; the keys derived per purpose.
  ['errors', 'derived-keys.ts'],
  // The per-request leaf every layer may read: the executed operation, its root fields, the slot
  // per-request state lives in, the request's path and raw answers.
  ['request'],
  // Traces, then logs and metrics (a log line carries the trace's ids).
  ['tracing'],
  ['observability'],
  // Redis clients per topology, then the upstream client (timeouts, retries, circuit, spans).
  ['redis.ts'],
  ['upstream'],
  // Who a request acts as: the strategy interface, the plugin that asks the strategies, and the
  // credential broker that applies the identity to upstream calls.
  ['identity'],
  // The domains, each over the ones before it.
  ['protection'],
  ['cache'],
  ['credentials'],
  ['session'],
  ['documents', 'idempotency', 'fast-path'],
  // The HTTP edge (routes, body limit, CORS, PDF downloads, the last word on errors), the audit
  // trail, the operators' endpoints, the drop-in front as a product of its own.
  ['http'],
  ['audit'],
  ['ops'],
  ['drop-in'],
  // The hot path: the gateway product's second caller of its execute steps, on Node's http objects
  // (it is given the steps; the composition above builds them).
  ['hot-path'],
  // Composition: the runtime, each product's plugin list and execute steps, the server; the CLI on top.
  ['gateway'],
  ['main.ts'],
];

const graph = readSourceGraph();
const rank = new Map(LAYERS.flatMap((units, index) => units.map((unit) => [unit, index] as const)));

/** `src/cache/cache-store.ts` -> `cache`, `src/main.ts` -> `main.ts`; undefined outside src/. */
function unitOf(file: string): string | undefined {
  if (!file.startsWith('src/')) return undefined;
  const rest = file.slice('src/'.length);
  const slash = rest.indexOf('/');
  return slash === -1 ? rest : rest.slice(0, slash);
}

describe('the layers of src/', () => {
  it('places every folder and root file of src/ in LAYERS', () => {
    const units = [...new Set(graph.files.map(unitOf).filter((unit): unit is string => unit !== undefined))];
    expect(units.length).toBeGreaterThan(15);
    expect(units.filter((unit) => !rank.has(unit))).toEqual([]);
  });

  it('imports only from the same folder or a lower layer', () => {
    const edges = graph.edges.filter((edge) => unitOf(edge.from) !== undefined && unitOf(edge.to) !== undefined);
    expect(edges.length).toBeGreaterThan(200);
    const upward = edges.filter((edge) => {
      const from = unitOf(edge.from) as string;
      const to = unitOf(edge.to) as string;
      return from !== to && (rank.get(to) ?? -1) >= (rank.get(from) ?? -1);
    });
    expect(upward.map((edge) => `${edge.from}:${edge.line} -> ${edge.to}${edge.typeOnly ? ' (type-only)' : ''}`)).toEqual([]);
  });

  it('finds an upward import when there is one (the rule can fail)', () => {
    const from = 'src/cache/use-read-cache.ts';
    const to = 'src/gateway/runtime.ts';
    expect((rank.get(unitOf(to) as string) ?? 0) > (rank.get(unitOf(from) as string) ?? 0)).toBe(true);
  });
});
