/** A Redis server of the test's own, so that a test can stop, pause and restart it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './launcher';

export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  /** Starts (or restarts) the server on the same port. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** SIGSTOP: the server holds connections but answers nothing (a hung Redis). */
  pause(): void;
  resume(): void;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;

  const waitUntilAnswering = async () => {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 300 });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        probe.disconnect();
      }
    }
    throw new Error(`redis-server on ${port} did not start`);
  };

  return {
    url,
    port,
    async start() {
      // Fails loudly when redis-server is missing (.ci/run installs it).
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      await waitUntilAnswering();
    },
    async stop() {
      const running = child;
      if (!running || running.exitCode !== null) return;
      running.kill('SIGCONT');
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
}
