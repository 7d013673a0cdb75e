/**
 * The physical limit of a Redis-backed cache hit, for `npm run bench`, run as its own process:
 * every request (any method and path; a body is read and ignored) does one Redis GET of
 * BENCH_REDIS_KEY on BENCH_REDIS_URL and writes the stored bytes as application/json. No session,
 * no GraphQL. Listens on 127.0.0.1 on a free port and prints `listening <url>` on stdout.
 */
import { createServer } from 'node:http';
import { serveOnLoopback } from './serve';
import { Redis } from 'ioredis';

const url = process.env.BENCH_REDIS_URL;
const key = process.env.BENCH_REDIS_KEY;
if (!url || !key) {
  console.error('bench redis-get server: BENCH_REDIS_URL and BENCH_REDIS_KEY are required');
  process.exit(2);
}
const redis = new Redis(url, { maxRetriesPerRequest: 0, commandTimeout: 500 });

const server = createServer((req, res) => {
  req.resume();
  req.once('end', () => {
    redis.getBuffer(key).then(
      (value) => {
        if (value === null) res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not stored"}');
        else res.writeHead(200, { 'content-type': 'application/json', 'content-length': value.length }).end(value);
      },
      () => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"redis"}'),
    );
  });
});
serveOnLoopback(server, () => redis.disconnect());
