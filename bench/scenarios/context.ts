/** What every scenario gets: the settings, the started targets, the load generator, the rows to add to, and the accounts' credentials. */
import type { Redis } from 'ioredis';
import type { Children } from '../children';
import type { Loader } from '../load';
import type { Rows } from '../rows';
import type { Settings } from '../settings';
import type { Targets } from '../targets';

/** Set up once before the scenarios (see run.ts). */
export interface Fixture {
  /** JSON and the upstream's credential headers of the pass-through account (for the peers). */
  readonly upstreamHeaders: Record<string, string>;
  /** JSON, X-CSRF and the gateway session cookie of the same account. */
  readonly cookieHeaders: Record<string, string>;
  /** JSON and the bench's service account's `Authorization: Bearer` key (signed in as the pass-through account). */
  readonly serviceHeaders: Record<string, string>;
  /** JSON, X-CSRF and the gateway session cookie of the PDF account (production). */
  readonly pdfHeaders: Record<string, string>;
  /** Pages of 20 otxIds of the PDF account, each read cold once; the last one is the warm page. */
  readonly pdfPages: readonly (readonly string[])[];
}

export interface ScenarioContext {
  readonly settings: Settings;
  readonly targets: Targets;
  readonly loader: Loader;
  readonly rows: Rows;
  readonly fixture: Fixture;
  /** For a scenario that starts a target of its own. */
  readonly children: Children;
  /** The bench's own Redis database. */
  readonly redis: Redis;
}

export interface Scenario {
  /** BENCH_ONLY names scenarios by this number. */
  readonly number: number;
  run(context: ScenarioContext): Promise<void>;
}

/** A GraphQL request body. */
export const graphqlBody = (query: string, variables?: Record<string, unknown>) => JSON.stringify(variables ? { query, variables } : { query });

/** A sender for a one-connection loop: the n-th request's body from `bodyFor`. */
export const sender =
  (url: string, headers: Record<string, string>, bodyFor: (n: number) => string) =>
  (n: number): Promise<Response> =>
    fetch(url, { method: 'POST', headers, body: bodyFor(n), signal: AbortSignal.timeout(30_000) });
