/**
 * Real Redis topologies for the scale-out tests, started from the installed redis-server on free
 * loopback ports, each node in its own folder, stopped by pid: a Cluster (masters with replicas,
 * made by `redis-cli --cluster create`) and a Sentinel group (a master, a replica, three
 * sentinels). Failure detection is tuned short (a node down after about a second) so that a
 * failover fits in a test; the gateway sees the same protocol as in production.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { command, freePorts, redisCli, startRedisProcess, topologyFolder, waitFor, type RedisProcess } from './redis-processes';

/** A bus port is the client port + 10000. */
const CLUSTER_BUS_OFFSET = 10_000;
const CLUSTER_NODE_TIMEOUT_MS = 1_000;
/** A master waits 5 s by default before a diskless full sync, for more replicas to join it. */
const SYNC_AT_ONCE = ['--repl-diskless-sync-delay', '0'];

export interface ClusterNode {
  readonly id: string;
  readonly port: number;
  readonly role: 'master' | 'replica';
  /** Slot ranges served, inclusive (masters only). */
  readonly slots: readonly (readonly [number, number])[];
  /** The master's id, for a replica. */
  readonly masterId: string | undefined;
  /** Flagged failed (or suspected) by the node asked. */
  readonly failed: boolean;
}

export interface RedisCluster {
  /** `127.0.0.1:port` of every node. */
  readonly seeds: readonly string[];
  /** `redis+cluster://` with every node as a seed. */
  readonly url: string;
  readonly ports: readonly number[];
  /** CLUSTER NODES as one live node sees it. */
  nodes(): Promise<ClusterNode[]>;
  /** The master serving `key`'s slot now. */
  masterForKey(key: string): Promise<ClusterNode>;
  /** SIGKILL of the node on `port`. */
  kill(port: number): Promise<void>;
  /** Whether the node on `port` still runs. */
  alive(port: number): boolean;
  stop(): Promise<void>;
}

/** Parses CLUSTER NODES (`<id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot>...`). */
export function parseClusterNodes(text: string): ClusterNode[] {
  return text.trim().split('\n').filter(Boolean).map((line) => {
    const [id = '', address = '', flags = '', master = '-', , , , , ...slotFields] = line.trim().split(' ');
    const flagList = flags.split(',');
    const slots = slotFields
      .filter((field) => !field.startsWith('['))
      .map((field): [number, number] => {
        const [start, end = start] = field.split('-').map(Number);
        return [start ?? 0, end ?? 0];
      });
    return {
      id,
      port: Number(/:(\d+)@/.exec(address)?.[1] ?? NaN),
      role: flagList.includes('master') ? 'master' : 'replica',
      slots,
      masterId: master === '-' ? undefined : master,
      failed: flagList.includes('fail') || flagList.includes('fail?'),
    };
  });
}

/** Starts `masters × (1 + replicasPerMaster)` cluster nodes and waits until every one of them reports the cluster ok. */
export async function startRedisCluster(options: { masters?: number; replicasPerMaster?: number } = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  const ports = await freePorts(masters * (1 + replicasPerMaster), CLUSTER_BUS_OFFSET);
  const folders = topologyFolder('cluster');
  const processes = new Map<number, RedisProcess>();
  const stop = async () => {
    await Promise.all([...processes.values()].map((node) => node.stop()));
    folders.remove();
  };
  try {
    const started = await Promise.all(ports.map((port) => startRedisProcess(port, folders.folder(port), [
      '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(CLUSTER_NODE_TIMEOUT_MS),
      '--appendonly', 'no', '--save', '', ...SYNC_AT_ONCE,
    ])));
    for (const node of started) processes.set(node.port, node);
    const seeds = ports.map((port) => `127.0.0.1:${port}`);
    await redisCli(['--cluster', 'create', ...seeds, '--cluster-replicas', String(replicasPerMaster), '--cluster-yes']);
    // Ready when every node agrees on the whole cluster: all slots served, every node known and
    // healthy, every replica known as the replica of its master, every replica's link to its
    // master up (a failover needs a synced replica).
    await waitFor(async () => {
      for (const port of ports) {
        if (!/cluster_state:ok/.test(String(await command(port, 'CLUSTER', 'INFO')))) return false;
        const seen = parseClusterNodes(String(await command(port, 'CLUSTER', 'NODES')));
        if (seen.length !== ports.length || seen.some((node) => node.failed)) return false;
        if (seen.filter((node) => node.role === 'master' && node.slots.length).length !== masters) return false;
        // Every replica known as one: redis-cli may return before a replica's CLUSTER REPLICATE has
        // reached every node (until then the others list it as a master without slots).
        if (seen.filter((node) => node.role === 'replica' && node.masterId).length !== masters * replicasPerMaster) return false;
        const replication = String(await command(port, 'INFO', 'replication'));
        if (/role:slave/.test(replication) && !/master_link_status:up/.test(replication)) return false;
      }
      return true;
    }, 20_000, () => `cluster on ${ports.join(',')} not ready:\n${[...processes.values()].map((node) => `${node.port}: ${node.logTail(5)}`).join('\n')}`);

    const live = () => ports.filter((port) => processes.get(port)?.alive());
    const nodes = async () => {
      for (const port of live()) {
        try {
          return parseClusterNodes(String(await command(port, 'CLUSTER', 'NODES')));
        } catch {
          // Try the next live node.
        }
      }
      throw new Error('no cluster node answers');
    };
    return {
      seeds,
      url: `redis+cluster://${seeds.join(',')}`,
      ports,
      nodes,
      async masterForKey(key) {
        const slot = Number(await command(live()[0] ?? 0, 'CLUSTER', 'KEYSLOT', key));
        const owner = (await nodes()).find((node) => node.role === 'master' && !node.failed && node.slots.some(([start, end]) => slot >= start && slot <= end));
        if (!owner) throw new Error(`no master serves slot ${slot} (of ${key})`);
        return owner;
      },
      async kill(port) {
        const node = processes.get(port);
        if (!node) throw new Error(`no cluster node on ${port}`);
        await node.kill();
      },
      alive: (port) => processes.get(port)?.alive() ?? false,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface SentinelGroup {
  readonly url: string;
  readonly masterName: string;
  readonly sentinelPorts: readonly number[];
  /** The master's address as the sentinels give it now. */
  master(): Promise<{ host: string; port: number }>;
  /** SIGKILL of the current master; its port. */
  killMaster(): Promise<number>;
  /** The last lines of every node's log, for failure messages. */
  logs(lines?: number): string;
  stop(): Promise<void>;
}

const MASTER_NAME = 'mymaster';

interface SentinelPeer {
  readonly port: number;
  readonly id: string;
}

function sentinelConfig(self: SentinelPeer, peers: readonly SentinelPeer[], folder: string, masterPort: number, replicaPort: number): string {
  const path = join(folder, 'sentinel.conf');
  // Sentinel rewrites this file (known replicas and sentinels, epochs): it lives in the node's
  // folder. The peers and the replica are written in from the start, so the group is ready without
  // waiting for the sentinels' hello messages (every 2 s) and the master's INFO (every 10 s).
  writeFileSync(path, [
    `port ${self.port}`,
    `sentinel myid ${self.id}`,
    `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
    `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
    `sentinel failover-timeout ${MASTER_NAME} 3000`,
    `sentinel parallel-syncs ${MASTER_NAME} 1`,
    `sentinel known-replica ${MASTER_NAME} 127.0.0.1 ${replicaPort}`,
    ...peers.filter((peer) => peer.port !== self.port).map((peer) => `sentinel known-sentinel ${MASTER_NAME} 127.0.0.1 ${peer.port} ${peer.id}`),
    '',
  ].join('\n'));
  return path;
}

/** A master, one replica and three sentinels (quorum 2), ready when every sentinel knows the replica and the other two. */
export async function startRedisSentinel(): Promise<SentinelGroup> {
  const [masterPort = 0, replicaPort = 0, ...sentinelPorts] = await freePorts(5);
  const folders = topologyFolder('sentinel');
  const processes = new Map<number, RedisProcess>();
  const stop = async () => {
    await Promise.all([...processes.values()].map((node) => node.stop()));
    folders.remove();
  };
  const add = (node: RedisProcess) => processes.set(node.port, node);
  try {
    const data = ['--appendonly', 'no', '--save', '', ...SYNC_AT_ONCE];
    add(await startRedisProcess(masterPort, folders.folder(masterPort), data));
    add(await startRedisProcess(replicaPort, folders.folder(replicaPort), [...data, '--replicaof', '127.0.0.1', String(masterPort)]));
    await waitFor(async () => /master_link_status:up/.test(String(await command(replicaPort, 'INFO', 'replication'))), 10_000, () => `replica on ${replicaPort} did not sync`);
    const peers = sentinelPorts.map((port) => ({ port, id: randomBytes(20).toString('hex') }));
    for (const node of await Promise.all(peers.map((peer) => {
      const folder = folders.folder(peer.port);
      return startRedisProcess(peer.port, folder, [sentinelConfig(peer, peers, folder, masterPort, replicaPort), '--sentinel']);
    }))) add(node);
    await waitFor(async () => {
      for (const port of sentinelPorts) {
        const replicas = (await command(port, 'SENTINEL', 'REPLICAS', MASTER_NAME)) as unknown[];
        const sentinels = (await command(port, 'SENTINEL', 'SENTINELS', MASTER_NAME)) as unknown[];
        if (replicas.length !== 1 || sentinels.length !== sentinelPorts.length - 1) return false;
        if (!String(await command(port, 'SENTINEL', 'CKQUORUM', MASTER_NAME)).startsWith('OK')) return false;
      }
      return true;
    }, 15_000, () => `sentinels on ${sentinelPorts.join(',')} did not discover each other and the replica`);

    const master = async () => {
      for (const port of sentinelPorts) {
        try {
          const [host = '', masterAt = ''] = (await command(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MASTER_NAME)) as string[];
          return { host, port: Number(masterAt) };
        } catch {
          // Try the next sentinel.
        }
      }
      throw new Error('no sentinel answers');
    };
    return {
      url: `redis+sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/${MASTER_NAME}`,
      masterName: MASTER_NAME,
      sentinelPorts,
      master,
      async killMaster() {
        const { port } = await master();
        const node = processes.get(port);
        if (!node) throw new Error(`the master (${port}) is not one of this group's nodes`);
        await node.kill();
        return port;
      },
      logs: (lines = 12) => [...processes.values()].map((node) => `--- ${node.port}\n${node.logTail(lines)}`).join('\n'),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
