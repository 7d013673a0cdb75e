/**
 * Runs once before the suite: Redis must answer on TEST_REDIS_URL (default 127.0.0.1:6379, db 9),
 * and the Mesh artifacts must be current, since every gateway test starts the gateway from them.
 * A missing Redis fails the run loudly; no test skips for want of it.
 */
import { Redis } from 'ioredis';
import { ensureMesh } from '../scripts/ensure-mesh';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/9';

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
  // Rebuilds only when .meshrc.ts, the sources or the lock file changed (their sha256 is kept in
  // .mesh/), under a lock, so two runs from one checkout at once do not break each other's build.
  await ensureMesh();
}
