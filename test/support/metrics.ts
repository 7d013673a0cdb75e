/** Reads a gateway's `/metrics` (Prometheus text format) into series a test can query. */

export interface Series {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  readonly text: string;
  readonly series: readonly Series[];
  /** `# TYPE` of each metric family. */
  readonly types: ReadonlyMap<string, string>;
  /** The sum of every series of `name` whose labels include `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Scrape {
  const series: Series[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [, , name = '', type = ''] = line.split(' ');
      types.set(name, type);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key = '', value = ''] of (match[2] ?? '').matchAll(LABEL)) labels[key] = value;
    series.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return {
    text,
    series,
    types,
    sum(name, wanted = {}) {
      return series
        .filter((entry) => entry.name === name && Object.entries(wanted).every(([key, value]) => entry.labels[key] === value))
        .reduce((total, entry) => total + entry.value, 0);
    },
  };
}

/** `authorization`: what a scraper sends when the gateway has an OPS_TOKEN. */
export async function scrape(gatewayUrl: string, authorization?: string): Promise<Scrape> {
  const response = await fetch(`${gatewayUrl}/metrics`, authorization ? { headers: { authorization } } : {});
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}
