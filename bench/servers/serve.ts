/**
 * How the bench's helper servers run, each as its own process: listen on 127.0.0.1 on a free port,
 * print `listening <url>` (bench/targets.ts waits for it), and on SIGTERM or SIGINT close every
 * connection, release what `cleanup` holds and exit.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function serveOnLoopback(server: Server, cleanup: () => unknown): void {
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  const stop = () => {
    server.close();
    server.closeAllConnections();
    void Promise.resolve()
      .then(cleanup)
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
