/**
 * What `POST /ops/cache/purge` drops (src/ops/cache-purge.ts answers it), for changes the gateway
 * did not see: an environment's definitions, one identity's statement reads and PDFs, one
 * statement's PDFs (and the identity's reads, which may list it), or everything of an environment.
 *
 * Everything is found through what the caches keep, never a keyspace scan: the definitions by
 * their key, an identity's groups by its scope, an environment's identities through its group
 * index (group-index.ts). A drop changes each group's generation, so a read that raced the purge
 * stores nothing, and remembers the reason, so the next misses count `purged`. Then a notice
 * reaches every replica (Redis pub/sub) and their in-process layers forget what they hold: the
 * definitions copy (with the definitions answers and the hot path, which serve only from it) and
 * the read cache's writes on their way.
 *
 * It runs on the store itself, not the fail-open one the caches read through: an operator is told
 * when the store cannot be reached, rather than shown zero counts.
 */
import { ENVIRONMENTS, type Environment } from '../environment';
import type { GatewayMetrics, PurgeScope } from '../observability/metrics';
import type { UpstreamTarget } from '../upstream/target';
import { cacheKeys, type CacheStore, type GroupSelection } from './cache-store';
import { identityScope } from './scope';

export interface PurgeRequest {
  readonly scope: PurgeScope;
  /** Both environments when undefined (`definitions` and `all` only). */
  readonly environment?: Environment;
  readonly uid?: string;
  readonly otxId?: string;
  /** Count what would go, drop nothing. */
  readonly dryRun: boolean;
}

export interface PurgeCounts {
  readonly definitions: number;
  readonly statements: number;
  readonly pdfs: number;
}

/** What every replica's in-process layers are told: the namespaces whose definitions went. */
export interface PurgeNotice {
  readonly definitions: readonly string[];
}

export interface CachePurgeOptions {
  /** The cache store itself (not failing open), where group names are as stored. */
  readonly store: CacheStore;
  /** The same store with identities' groups keyed and sealed, as the caches name them (sealed-values.ts). */
  readonly sealed: CacheStore;
  readonly upstreams: Readonly<Record<Environment, UpstreamTarget>>;
  readonly metrics: Pick<GatewayMetrics, 'cachePurge'>;
  readonly clock: () => number;
}

export type CachePurge = (request: PurgeRequest) => Promise<PurgeCounts>;

/** Groups of an environment dropped at once in an `all` purge: each is one script on its own slot. */
const CONCURRENT_GROUPS = 32;

export function createCachePurge({ store, sealed, upstreams, metrics, clock }: CachePurgeOptions): CachePurge {
  /** Counts (dry run) or drops a group's members, through `via`. */
  const members = (via: CacheStore, group: string, selection: GroupSelection, dryRun: boolean) =>
    dryRun ? via.countMembers(group, selection) : via.dropMembers(group, selection, 'purged');

  const definitions = async (namespace: string, dryRun: boolean) => {
    const entry = cacheKeys.definitions(namespace);
    if (dryRun) return store.countKeys([entry]);
    const [dropped] = await Promise.all([store.deleteKeys([entry]), store.deleteKeys([cacheKeys.definitionsFetchedAt(namespace)])]);
    return dropped;
  };

  /** Every identity's groups of the namespace, found through its group index. */
  const everything = async (namespace: string, dryRun: boolean) => {
    const groups = await store.indexedGroups(cacheKeys.groups(namespace), clock());
    let statements = 0;
    let pdfs = 0;
    for (let start = 0; start < groups.length; start += CONCURRENT_GROUPS) {
      await Promise.all(groups.slice(start, start + CONCURRENT_GROUPS).map(async (group) => {
        const n = await members(store, group, 'all', dryRun);
        if (group.endsWith(':pdf')) pdfs += n;
        else statements += n;
      }));
    }
    return { statements, pdfs, definitions: await definitions(namespace, dryRun) };
  };

  return async (request) => {
    const { scope, dryRun } = request;
    const environments = request.environment ? [request.environment] : ENVIRONMENTS;
    const namespaces = environments.map((environment) => upstreams[environment].cacheNamespace);
    const counts = { definitions: 0, statements: 0, pdfs: 0 };
    if (scope === 'definitions') {
      for (const namespace of namespaces) counts.definitions += await definitions(namespace, dryRun);
    } else if (scope === 'all') {
      for (const namespace of namespaces) {
        const found = await everything(namespace, dryRun);
        counts.definitions += found.definitions;
        counts.statements += found.statements;
        counts.pdfs += found.pdfs;
      }
    } else {
      // identity and statement: one identity of one environment (the endpoint checked the fields).
      const identity = identityScope(namespaces[0] as string, request.uid ?? '');
      const pdfs: GroupSelection = scope === 'statement' ? { ids: [request.otxId ?? ''], aliases: [] } : 'all';
      const [statements, pdfCount] = await Promise.all([members(sealed, cacheKeys.reads(identity), 'all', dryRun), members(sealed, cacheKeys.pdfs(identity), pdfs, dryRun)]);
      counts.statements = statements;
      counts.pdfs = pdfCount;
    }
    if (dryRun) return counts;
    metrics.cachePurge(scope);
    const notice: PurgeNotice = { definitions: scope === 'definitions' || scope === 'all' ? namespaces : [] };
    await store.announce(JSON.stringify(notice));
    return counts;
  };
}

/** The notice's namespaces, or undefined for a message of another form. */
export function purgeNotice(message: string): PurgeNotice | undefined {
  try {
    const notice = JSON.parse(message) as Partial<PurgeNotice>;
    return Array.isArray(notice.definitions) ? { definitions: notice.definitions.filter((name): name is string => typeof name === 'string') } : undefined;
  } catch {
    return undefined;
  }
}
