/**
 * What our gateway counted during a measured run, read from its /metrics before and after: the
 * notes of its rows (`readHit <n>, readMiss <n>`) show that a row measured what it says (every
 * "uncached" read a miss, every warm PDF a hit).
 */
import type { Loader, LoadSpec, Measured } from './load';
import type { Target } from './targets';

/** The gateway's counters this bench reads from /metrics (absent series count as 0). */
const SERIES = {
  sessions: 'statement_gateway_sessions_total{event="login"}',
  readHit: 'statement_gateway_cache_lookups_total{cache="statements",result="hit"}',
  readMiss: 'statement_gateway_cache_lookups_total{cache="statements",result="miss"}',
  pdfHit: 'statement_gateway_cache_lookups_total{cache="pdf",result="hit"}',
  pdfMiss: 'statement_gateway_cache_lookups_total{cache="pdf",result="miss"}',
  definitionsHit: 'statement_gateway_cache_lookups_total{cache="definitions",result="hit"}',
  hot: 'statement_gateway_hot_path_answers_total',
} as const;
export type Series = keyof typeof SERIES;
type Counts = Record<Series, number>;

const NAMES = Object.keys(SERIES) as Series[];

async function gatewayCounters(gateway: Target): Promise<Counts> {
  const text = await (await fetch(`${gateway.url}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (!line.startsWith('#') && space > 0) values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return Object.fromEntries(NAMES.map((name) => [name, values.get(SERIES[name]) ?? 0])) as Counts;
}

export interface Counted {
  readonly measured: Measured;
  /** `name count` of each series asked for, during the measured part. */
  readonly note: string;
}

/** Runs `measure`, which calls `mark` where its measured part begins, and notes the counts of `names` since. */
export async function countedDuring(gateway: Target, names: readonly Series[], measure: (mark: () => Promise<unknown>) => Promise<Measured>): Promise<Counted> {
  let before: Counts | undefined;
  const measured = await measure(async () => (before = await gatewayCounters(gateway)));
  const after = await gatewayCounters(gateway);
  return { measured, note: names.map((name) => `${name} ${after[name] - (before?.[name] ?? 0)}`).join(', ') };
}

/** autocannon on the gateway's /graphql, with the counts of `names` during the measured run (after `mark`). */
export function loadOnGateway(loader: Loader, gateway: Target, spec: Omit<LoadSpec, 'url'>, names: readonly Series[], mark?: () => Promise<unknown>): Promise<Counted> {
  return countedDuring(gateway, names, (markCounters) =>
    loader.load(gateway.pid, { ...spec, url: `${gateway.url}/graphql` }, async () => {
      await mark?.();
      await markCounters();
    }),
  );
}
