/**
 * A Node HTTP server for a given request listener, hardened the same way on every port the gateway
 * opens (the traffic port, and OPS_PORT's): deadlines for slow clients, a cap on open connections,
 * `Expect: 100-continue` answered within the body limit, keep-alive longer than a proxy's. What
 * the listener serves is decided by whoever composes it (server.ts); how it stops is drain.ts.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { continueWithinLimit, type BodyLimitOptions } from '../http/body-limit';

/** Open connections one replica accepts per listener (`server.maxConnections`). */
export const MAX_CONNECTIONS = 4_096;

export interface ListenerOptions {
  readonly host: string;
  /** MAX_BODY_BYTES: a client asking before it sends its body is told to go on only within it. */
  readonly maxBodyBytes: number;
  /** A path's own body limit (the drop-in front's), as bodyLimit reads it. */
  readonly bodyLimitFor?: BodyLimitOptions['ruleFor'];
  /** MAX_CONNECTIONS unless given: a test proves the cap with a few connections, not thousands. */
  readonly maxConnections?: number;
}

export interface ListenerSpec {
  readonly listener: RequestListener;
  /** 0: any free port (tests). */
  readonly port: number;
}

export interface Listening {
  readonly server: Server;
  /** Where to reach it from this machine (`http://127.0.0.1:<port>` for `0.0.0.0`). */
  readonly url: string;
}

function hardenedServer(listener: RequestListener, { maxBodyBytes, bodyLimitFor, maxConnections = MAX_CONNECTIONS }: ListenerOptions): Server {
  const server = createServer(
    {
      // Slow clients: the headers within 10 s, the whole request within 30 s. Node checks both
      // deadlines every connectionsCheckingInterval (30 s by default, so a client dripping header
      // bytes kept its connection up to 40 s): every second, a connection is closed (408) within
      // a second of its deadline.
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      connectionsCheckingInterval: 1_000,
    },
    listener,
  );
  server.on('checkContinue', continueWithinLimit(maxBodyBytes, listener, bodyLimitFor));
  // Longer than the idle timeout of the proxies and load balancers in front (60 s for most), so
  // that they, not the gateway, close an idle connection: no request is sent on one just closed.
  server.keepAliveTimeout = 65_000;
  // Open connections, idle keep-alive ones included: past it new ones are closed at once, so a
  // flood of slow or idle connections runs into this rather than file descriptors and memory. Far
  // above what one replica serves behind the proxy (whose limit_conn is per address). Per
  // listener: a flood on the traffic port leaves OPS_PORT's probes their own connections.
  server.maxConnections = maxConnections;
  return server;
}

async function listenOn(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return `http://${shown}:${bound}`;
}

/**
 * Each listener on its port, on `options.host`, all or none: when one port cannot be had, those
 * already listening are closed before the error goes on (a failed start leaves no port open).
 */
export async function listenAll(listeners: readonly [ListenerSpec, ...ListenerSpec[]], options: ListenerOptions): Promise<[Listening, ...Listening[]]> {
  const started: Listening[] = [];
  try {
    for (const { listener, port } of listeners) {
      const server = hardenedServer(listener, options);
      started.push({ server, url: await listenOn(server, options.host, port) });
    }
    // One per listener given, in their order: the first is there.
    return started as [Listening, ...Listening[]];
  } catch (error) {
    await Promise.all(started.map(({ server }) => new Promise((resolve) => server.close(resolve))));
    throw error;
  }
}
