/**
 * A graceful stop for one gateway's HTTP servers (the traffic port and, with OPS_PORT, the ops
 * port), the contract's SIGTERM sequence: /readiness says `stopping` at once on both (so load
 * balancers stop sending), every request is still served for `delayMs` (they take a few seconds to
 * notice), then every listener closes and requests in flight may finish for up to `timeoutMs`
 * before the remaining connections are cut.
 * From the first moment, every answer says `Connection: close`: a keep-alive client finishes its
 * current request and opens its next connection elsewhere, instead of sending it on a socket that
 * is about to close (the request that would be dropped unanswered).
 */
import type { Server } from 'node:http';
import type { Lifecycle } from '../observability/lifecycle';

export interface DrainOptions {
  /** SHUTDOWN_DELAY: serve everything, with readiness already 503. */
  readonly delayMs: number;
  /** SHUTDOWN_TIMEOUT: then, how long requests in flight may finish. */
  readonly timeoutMs: number;
}

export interface Drainable {
  /** Runs the sequence once; later calls get the same promise (a second SIGTERM changes nothing). */
  drain(options: DrainOptions): Promise<void>;
}

/** Stops `server` listening; resolves once its last connection is gone, cutting those left after `timeoutMs`. */
function closeWithin(server: Server, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

export function drainable(servers: readonly Server[], lifecycle: Pick<Lifecycle, 'phase' | 'stopping'>): Drainable {
  for (const server of servers) {
    // First among the request listeners, so the header is set before any answer is written.
    server.prependListener('request', (_request, response) => {
      if (lifecycle.phase === 'stopping') response.setHeader('connection', 'close');
      // An answer begun before the drain may have promised keep-alive: its connection is closed as
      // soon as it is idle, rather than left open until the keep-alive timeout or the cut.
      response.once('finish', () => {
        if (lifecycle.phase === 'stopping') setImmediate(() => server.closeIdleConnections());
      });
    });
  }
  let draining: Promise<void> | undefined;
  const drain = async ({ delayMs, timeoutMs }: DrainOptions) => {
    // One phase for the whole gateway: /readiness answers 503 on every port at once.
    lifecycle.stopping();
    // Idle keep-alive connections would never see a `Connection: close` answer: close them now and
    // again after the delay; one that sends a request meanwhile gets its answer, then is closed.
    for (const server of servers) server.closeIdleConnections();
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    // Every listener stops at the same moment, each with the same time for what it has in flight.
    await Promise.all(servers.map((server) => closeWithin(server, timeoutMs)));
  };
  return { drain: (options) => (draining ??= drain(options)) };
}
