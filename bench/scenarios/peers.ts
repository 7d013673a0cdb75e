/**
 * Scenarios 1 and 2 measure our gateway as a pass-through next to its peers on the same query:
 * the emulator directly, a raw undici proxy (the floor for any Node gateway) and Hive Gateway in
 * proxy mode, these three with the upstream's credential headers (our gateway with a cookie
 * session). Hive Gateway and our gateway both merge identical in-flight upstream queries (the
 * HTTP executor of @graphql-tools, on by default), so under this load of identical requests they
 * make fewer upstream calls than they answer; the raw proxy forwards every one.
 */
import type { Measured } from '../load';
import type { Target } from '../targets';
import { sender, type ScenarioContext } from './context';

/** The emulator, the raw proxy and Hive Gateway under autocannon, one row each. */
export async function peerRows({ targets, loader, rows, fixture }: ScenarioContext, scenario: string, latencyMs: number, body: string): Promise<void> {
  const headers = fixture.upstreamHeaders;
  rows.add(scenario, latencyMs, 'emulator', 'emulator direct', await loader.load(targets.sandbox.pid, { body, url: `${targets.sandbox.url}/v2/graphql`, headers }));
  rows.add(scenario, latencyMs, 'raw', 'raw undici proxy', await loader.load(targets.raw.pid, { body, url: `${targets.raw.url}/v2/graphql`, headers }));
  rows.add(scenario, latencyMs, 'hive', 'Hive Gateway proxy', await loader.load(targets.hive.pid, { body, url: `${targets.hive.url}/graphql`, headers }));
}

/**
 * A one-connection loop (at most BENCH_SECONDS and the sequential count) on `target` at `path`:
 * the latency one request adds, without queueing behind others and without merging of identical
 * in-flight requests.
 */
export function oneConnection({ loader, settings }: ScenarioContext, target: Target, path: string, headers: Record<string, string>, bodyFor: (n: number) => string): Promise<Measured> {
  return loader.sequential(target.pid, settings.sequentialCount, sender(`${target.url}${path}`, headers, bodyFor));
}

/**
 * The ratios of the pass-through rows, and on each row the p50 it adds over the emulator direct's
 * on as many connections. `fromCache`: our rows answered from a cache (their p50 is not the
 * upstream's plus ours).
 */
export function relatePeers({ rows }: ScenarioContext, scenario: string, latencyMs: number, fromCache: readonly string[] = []): void {
  const noteAdded = (directKey: string, keys: readonly string[]) => {
    const direct = rows.find(scenario, latencyMs, directKey);
    for (const key of keys) {
      const subject = fromCache.includes(key) ? undefined : rows.find(scenario, latencyMs, key);
      if (subject && direct) subject.note = [subject.note, `p50 +${(subject.p50Ms - direct.p50Ms).toFixed(2)} ms over direct`].filter(Boolean).join(', ');
    }
  };
  noteAdded('emulator-seq', ['raw-seq', 'hive-seq', 'gateway-seq']);
  noteAdded('emulator', ['raw', 'hive', 'gateway', 'gateway-trusted', 'gateway-uncached', 'gateway-service-account']);
  rows.relate(scenario, latencyMs, 'raw', 'emulator');
  rows.relate(scenario, latencyMs, 'hive', 'emulator');
  rows.relate(scenario, latencyMs, 'gateway', 'raw');
  rows.relate(scenario, latencyMs, 'gateway-trusted', 'raw');
  rows.relate(scenario, latencyMs, 'gateway-uncached', 'raw');
  rows.relate(scenario, latencyMs, 'gateway-service-account', 'raw');
}
