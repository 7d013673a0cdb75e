/**
 * Redis connections, for each topology REDIS_URL and CACHE_REDIS_URL name (one server, a
 * Sentinel group, a Cluster). Commands fail fast instead of queueing while Redis is away (no
 * offline queue, a command timeout well under a second), and the client keeps reconnecting in the
 * background (on a failover: to the master the sentinels or the cluster promoted), so the gateway
 * recovers without a restart.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisTarget, RedisTopology } from './config';
import type { StoreHealth } from './observability/store-health';

/**
 * A Redis client of any topology. Both run the same commands, scripts (defineCommand),
 * pipelines, transactions and pub/sub; on a Cluster every multi-key command, script and
 * transaction must keep to one slot (a shared `{...}` hash tag).
 */
export type RedisClient = Redis | Cluster;

export interface RedisClientOptions {
  readonly target: RedisTarget;
  /** Where outages are reported (logged once per outage); none: a helper connection whose errors the main one reports. */
  readonly health?: StoreHealth;
  readonly name?: string;
  readonly commandTimeoutMs?: number;
}

/**
 * Each subscriber of the gateway's (the session cache's, the cache store's lock releases)
 * subscribes again itself on every 'ready', handling the outcome. ioredis's own resubscription
 * sends SUBSCRIBE without a handler: a connection closed before its reply (a gateway stopping
 * right after Redis came back) was an unhandled rejection, which ends a Node process.
 */
const OWN_RESUBSCRIPTION = { autoResubscribe: false } as const;

/** Reconnect forever, at most a second apart. */
const reconnectDelay = (attempt: number) => Math.min(attempt * 100, 1_000);

/**
 * A Sentinel client that starts again after an end nobody asked for. ioredis's failover detector
 * (subscribed to +switch-master) ends the connector when the sentinels switch masters; if that
 * happens while a reconnection is asking a sentinel for the master (the old master is dead, so the
 * client is reconnecting), the attempt fails and the client ends for good: the gateway would stay
 * without its store until a restart. Such an end comes straight from `connecting`; a quit or a
 * disconnect of ours never does (a quit closes first, a disconnect is flagged).
 */
class SentinelClient extends Redis {
  private closing = false;
  private last = '';

  constructor(options: RedisOptions) {
    super(options);
    for (const status of ['connecting', 'connect', 'ready', 'close', 'reconnecting']) this.on(status, () => (this.last = status));
    this.on('end', () => {
      if (this.closing || this.last !== 'connecting') return;
      setTimeout(() => {
        if (!this.closing && this.status === 'end') this.connect().catch(() => undefined);
      }, reconnectDelay(1)).unref();
    });
  }

  override disconnect(reconnect = false): void {
    if (!reconnect) this.closing = true;
    super.disconnect(reconnect);
  }
}

export function createRedisClient(options: RedisClientOptions): RedisClient {
  const { target } = options;
  const connection = {
    connectionName: `statement-gateway:${options.name ?? options.health?.name ?? 'helper'}`,
    // A command fails at once rather than waiting for a reconnection, and never past its timeout.
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 1_000,
    // Commands issued in one tick leave in one write (one syscall instead of one each): under
    // load the session rate-limit counts of concurrent requests share a write.
    enableAutoPipelining: true,
  } satisfies RedisOptions;
  let client: RedisClient;
  if (target.topology === 'cluster') {
    client = new Cluster(target.nodes.map((node) => ({ host: node.host, port: node.port })), {
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      clusterRetryStrategy: reconnectDelay,
      // A command to a master that just died is retried on the promoted one; the retries are
      // bounded by the command timeout (its timer runs from the first send) and by these counts.
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      retryDelayOnTryAgain: 100,
      maxRedirections: 5,
      slotsRefreshTimeout: 1_000,
      redisOptions: {
        ...connection,
        ...(target.username ? { username: target.username } : {}),
        ...(target.password ? { password: target.password } : {}),
        // `?tls=true`: every node, the seeds and those learnt from them, over TLS.
        ...(target.tls ? { tls: {} } : {}),
      },
    });
  } else if (target.topology === 'sentinel') {
    client = new SentinelClient({
      ...connection,
      ...OWN_RESUBSCRIPTION,
      sentinels: target.sentinels.map((node) => ({ host: node.host, port: node.port })),
      name: target.masterName,
      db: target.db,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      // `?tls=true`: the data nodes (ioredis needs enableTLSForSentinelMode for them) and the
      // sentinels over TLS, so no address a sentinel hands out travels in clear either.
      ...(target.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
      enableOfflineQueue: false,
      retryStrategy: reconnectDelay,
      // All sentinels unreachable: keep asking them, as for a lost master.
      sentinelRetryStrategy: reconnectDelay,
      sentinelCommandTimeout: options.commandTimeoutMs ?? 500,
      // Sentinel's +switch-master drops the connection at once, so no command reaches a demoted
      // master that is still up (a partition) after the sentinels promoted its replica.
      failoverDetector: true,
      sentinelReconnectStrategy: () => 5_000,
    });
  } else {
    client = new Redis(target.url, { ...connection, ...OWN_RESUBSCRIPTION, enableOfflineQueue: false, retryStrategy: reconnectDelay });
  }
  // ioredis emits an error per reconnection attempt; the health object logs the outage once.
  const health = options.health;
  if (health) {
    client.on('error', (error: unknown) => health.failed(error));
    // On a Cluster a lost node does not change the client's status: its errors come this way.
    if (client instanceof Cluster) client.on('node error', (error: unknown) => health.failed(error));
    client.on('ready', () => health.ok());
  } else {
    client.on('error', () => undefined);
    if (client instanceof Cluster) client.on('node error', () => undefined);
  }
  return client;
}

/** The topology a client was made for, for the start log. */
export const topologyOf = (target: RedisTarget | undefined): RedisTopology | 'memory' => target?.topology ?? 'memory';

/** Resolves once the client is ready, or after `ms` (the gateway then starts not ready). */
export function waitForReady(client: RedisClient, ms: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      resolve(false);
    }, ms);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    client.once('ready', onReady);
  });
}

/** Hash slots of a Redis Cluster. */
const SLOTS = 16_384;

/** How long a store check waits for a slot map refresh (each node asked is bounded by slotsRefreshTimeout too). */
const SLOTS_REFRESH_WAIT_MS = 1_000;

/**
 * Whether the store can serve commands now. One server or Sentinel: its (current) master answers.
 * A Cluster: the master of every slot, as the client routes them, answers, and the cluster says
 * every slot is served. A master lost and not yet replaced fails the first test at once (the
 * client drops its connection) and the second once the cluster marks it failed.
 *
 * The client only learns a new slot map from a MOVED or a lost connection on a command, so after
 * a failover its map still names the dead master until a command for one of that master's slots
 * happens to run: a login (whose check this is) on a replica that sent none would be refused long
 * after the replica took over. A failed check therefore asks the cluster for its slot map once and
 * checks again.
 */
export async function pingRedis(client: RedisClient): Promise<void> {
  if (!(client instanceof Cluster)) {
    await client.ping();
    return;
  }
  if (client.status !== 'ready') throw new Error(`cluster ${client.status}`);
  try {
    await pingCluster(client);
  } catch {
    await refreshSlots(client);
    await pingCluster(client);
  }
}

/** Asks the cluster for its slot map (joining a refresh under way); resolves whatever the outcome. */
function refreshSlots(client: Cluster): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, SLOTS_REFRESH_WAIT_MS);
    client.refreshSlotsCache(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function pingCluster(client: Cluster): Promise<void> {
  const owners = new Set<string>();
  for (let slot = 0; slot < SLOTS; slot++) {
    const owner = client.slots[slot]?.[0];
    if (owner === undefined) throw new Error('a slot without a master');
    owners.add(owner);
  }
  const connected = new Map(client.nodes('master').map((node) => [`${node.options.host ?? ''}:${node.options.port ?? ''}`, node]));
  await Promise.all(
    [...owners].map(async (owner) => {
      const node = connected.get(owner);
      if (!node) throw new Error('a master is not connected');
      await node.ping();
    }),
  );
  const info = await client.cluster('INFO');
  if (!/^cluster_state:ok\s*$/m.test(info)) throw new Error('cluster state not ok');
}
