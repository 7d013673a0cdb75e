/**
 * Runs once before the suite: Redis must answer on TEST_REDIS_URL (default 127.0.0.1:6379, db 9),
 * and the Mesh artifacts must be current, since every gateway test starts the gateway from them.
 * A missing Redis fails the run loudly; no test skips for want of it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';

const ROOT = path.resolve(__dirname, '..');
const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/9';

function newestMtime(entry: string): number {
  const stats = statSync(entry);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(entry).map((name) => newestMtime(path.join(entry, name))));
}

/** `mesh build` again only when .meshrc.ts or the sources changed since the last build. */
function meshBuildIsStale(): boolean {
  const artifact = path.join(ROOT, '.mesh', 'index.ts');
  if (!existsSync(artifact)) return true;
  const inputs = ['.meshrc.ts', 'sources', 'package-lock.json'].map((name) => newestMtime(path.join(ROOT, name)));
  return Math.max(...inputs) > statSync(artifact).mtimeMs;
}

export default async function setup(): Promise<void> {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2_000, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`The tests need Redis at ${TEST_REDIS_URL} (start redis-server, or set TEST_REDIS_URL): ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    redis.disconnect();
  }
  if (meshBuildIsStale()) {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules', '@graphql-mesh', 'cli', 'cjs', 'bin.js'), 'build'], { cwd: ROOT, stdio: 'pipe' });
  }
}
