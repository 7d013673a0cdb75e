/**
 * A real egress proxy for tests, in the test's own process, as a corporate one (squid, an
 * envoy egress gateway) behaves: `CONNECT host:port` opens a tunnel (https:// destinations), a
 * request in absolute form (`POST http://host:port/path`) is forwarded (http:// destinations). It
 * keeps what it was asked for, so a test sees which calls went through it and which did not.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

export interface ProxiedRequest {
  /** `tunnel` for CONNECT, `forward` for a request in absolute form. */
  readonly kind: 'tunnel' | 'forward';
  readonly method: string;
  /** `host:port` of the destination. */
  readonly target: string;
  /** The destination's path (forwarded requests only: a tunnel's content is not read). */
  readonly path?: string;
  readonly proxyAuthorization?: string;
}

export interface EgressProxy {
  /** `http://127.0.0.1:<port>`: what HTTPS_PROXY and HTTP_PROXY are set to. */
  readonly url: string;
  /** Every request it was asked to carry, oldest first. */
  readonly requests: ProxiedRequest[];
  close(): Promise<void>;
}

const targetOf = (url: URL) => `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;

export async function startEgressProxy(): Promise<EgressProxy> {
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const auth = (req: IncomingMessage) => (req.headers['proxy-authorization'] ? { proxyAuthorization: req.headers['proxy-authorization'] } : {});

  const server = createServer((req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      // Origin form: not a proxy request (a client that took the proxy for the server).
      res.writeHead(400).end();
      return;
    }
    requests.push({ kind: 'forward', method: req.method ?? 'GET', target: targetOf(url), path: url.pathname, ...auth(req) });
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const outgoing = request({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    outgoing.on('error', () => res.headersSent ? res.destroy() : res.writeHead(502).end());
    req.pipe(outgoing);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const [host = '', port = '443'] = (req.url ?? '').split(/:(?=\d+$)/);
    requests.push({ kind: 'tunnel', method: 'CONNECT', target: `${host}:${port}`, ...auth(req) });
    let connected = false;
    const upstream = net.connect(Number(port), host.replace(/^\[|\]$/g, ''), () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    // A destination it cannot reach is a 502 to the client, as a proxy answers; a tunnel that breaks later just closes.
    upstream.on('error', () => (connected ? client.destroy() : client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n')));
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
