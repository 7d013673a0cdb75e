/**
 * A real Redis Cluster of the test's own: `masters` redis-server processes with cluster mode on,
 * on free loopback ports (and their bus ports), each in a temp folder, joined by
 * `redis-cli --cluster create`; stopped by their pids. Fails loudly without redis-server.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

export interface LocalCluster {
  readonly ports: readonly number[];
  /** `redis+cluster://127.0.0.1:p1,...`, as REDIS_URL takes it. */
  readonly url: string;
  /** SIGKILL of the node on `port` (a crash: no goodbye to the clients or the cluster). */
  kill(port: number): Promise<void>;
  stop(): Promise<void>;
}

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port whose cluster bus port (+10000) is free too. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || taken.has(port + 10_000) || taken.has(port - 10_000)) continue;
    if ((await isFree(port)) && (await isFree(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
}

async function until(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`local cluster: ${what} within ${ms} ms`);
}

async function answer<T>(port: number, command: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await command(redis);
  } finally {
    redis.disconnect();
  }
}

export async function startLocalCluster(masters = 3): Promise<LocalCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'sgw-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let index = 0; index < masters; index++) ports.push(await clusterPort(taken));
  const children: ChildProcess[] = ports.map((port) =>
    spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`,
        '--cluster-node-timeout', '2000', '--dir', dir, '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    ),
  );
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) await until(`redis-server on ${port} answering`, async () => (await answer(port, (redis) => redis.ping())) === 'PONG');
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes']);
    for (const port of ports) {
      await until(`cluster state ok on ${port}`, async () => /cluster_state:ok/.test(await answer(port, (redis) => redis.cluster('INFO'))));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const kill = async (port: number) => {
    const child = children[ports.indexOf(port)];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  return { ports, url: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`, kill, stop };
}
