/**
 * redis-server processes of the test's own, for the topology helpers (redis-topologies.ts): each
 * in its own folder under one temporary root, on free loopback ports, stopped by pid. No vitest
 * here, so scripts can use it too. Processes still running when this process exits are killed
 * (a failed or interrupted test must not leave a cluster behind).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './launcher';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `count` distinct free loopback ports; with `busOffset`, `port + busOffset` is free too (a cluster
 * node also listens on its bus port, its port + 10000).
 */
export async function freePorts(count: number, busOffset?: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (ports.includes(port)) continue;
    if (busOffset !== undefined && (port + busOffset > 65_535 || !(await canListen(port + busOffset)))) continue;
    ports.push(port);
  }
  return ports;
}

/** A temporary folder for one topology; `remove()` deletes it and everything its nodes wrote. */
export function topologyFolder(name: string): { readonly root: string; folder(port: number): string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), `sgw-${name}-`));
  return {
    root,
    folder(port) {
      const path = join(root, String(port));
      mkdirSync(path, { recursive: true });
      return path;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface RedisProcess {
  readonly port: number;
  readonly pid: number;
  readonly folder: string;
  /** Whether it is still running. */
  alive(): boolean;
  /** SIGKILL: no shutdown, no goodbye to its peers, as a crashed host. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after a second. */
  stop(): Promise<void>;
  /** The last lines of its log, for failure messages. */
  logTail(lines?: number): string;
}

/** One command to the server on `port`, over a connection of its own that gives up fast. */
export async function command(port: number, name: string, ...args: (string | number)[]): Promise<unknown> {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500, commandTimeout: 1_000, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.call(name, ...args);
  } finally {
    redis.disconnect();
  }
}

/** Polls `check` (every 100 ms) until it holds; throws `describe()` after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // Not answering yet counts as not ready.
    }
    if (Date.now() > deadline) throw new Error(describe());
    await sleep(100);
  }
}

/**
 * Starts `redis-server` with `args` (a config file first, if any) on `port`, logging to its folder,
 * and waits until it answers PING. Fails loudly when redis-server is missing (.ci/run installs it).
 */
export async function startRedisProcess(port: number, folder: string, args: string[]): Promise<RedisProcess> {
  const logfile = join(folder, 'redis.log');
  const child = spawn('redis-server', [...args, '--port', String(port), '--bind', '127.0.0.1', '--dir', folder, '--logfile', logfile], { stdio: 'ignore' });
  const spawned = await new Promise<number>((resolve, reject) => {
    child.once('spawn', () => resolve(child.pid ?? 0));
    child.once('error', reject);
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    running.delete(child);
    resolve();
  }));
  const logTail = (lines = 20) => {
    try {
      return readFileSync(logfile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  };
  const alive = () => child.exitCode === null && child.signalCode === null;
  await waitFor(async () => {
    if (!alive()) throw new Error('exited');
    return (await command(port, 'PING')) === 'PONG';
  }, 5_000, () => `redis-server on ${port} did not start (${alive() ? 'running' : 'exited'}):\n${logTail()}`);
  return {
    port,
    pid: spawned,
    folder,
    alive,
    logTail,
    async kill() {
      if (!alive()) return;
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!alive()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 1_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs redis-cli with `args`; its output, or an error with it. */
export function redisCli(args: string[], timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`redis-cli ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}
