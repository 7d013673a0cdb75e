/**
 * A recording HTTP proxy put between the gateway and the emulator: it forwards everything and
 * keeps each request's and answer's headers, so tests can see exactly what crossed the wire.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly requestHeaders: IncomingHttpHeaders;
  readonly status: number;
  readonly responseHeaders: Record<string, string>;
  /** Request and response body sizes, in bytes. */
  readonly requestBytes: number;
  readonly responseBytes: number;
}

/** What a faulty upstream does instead of answering: an answer of its own, hang, or drop the connection. */
export type Fault = { readonly status: number; readonly contentType: string; readonly body: string } | 'hang' | 'drop';
/** A fault for some requests only (one user's, by the `uid` credential header), none for the others. */
export type FaultRule = (request: { readonly method: string; readonly headers: IncomingHttpHeaders }) => Fault | undefined;

export interface RecordingProxy {
  readonly url: string;
  readonly exchanges: Exchange[];
  /** When set, requests to /v2/graphql get this fault (or the one the rule picks) instead of the upstream's answer. */
  fault: Fault | FaultRule | undefined;
  close(): Promise<void>;
}

export async function startRecordingProxy(target: () => string): Promise<RecordingProxy> {
  const exchanges: Exchange[] = [];
  const proxy = { fault: undefined as Fault | FaultRule | undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const set = req.url?.startsWith('/v2/graphql') ? proxy.fault : undefined;
      const fault = typeof set === 'function' ? set({ method: req.method ?? 'GET', headers: req.headers }) : set;
      if (fault === 'hang') return;
      if (fault === 'drop') return void req.socket.destroy();
      if (fault) return void res.writeHead(fault.status, { 'content-type': fault.contentType }).end(fault.body);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined && !['host', 'connection', 'content-length'].includes(name)) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      fetch(`${target()}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, ...(body && req.method !== 'GET' ? { body } : {}) })
        .then(async (answer) => {
          const responseHeaders: Record<string, string> = {};
          answer.headers.forEach((value, name) => {
            if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name)) responseHeaders[name] = value;
          });
          const payload = Buffer.from(await answer.arrayBuffer());
          exchanges.push({ method: req.method ?? 'GET', path: req.url ?? '/', requestHeaders: req.headers, status: answer.status, responseHeaders, requestBytes: body?.length ?? 0, responseBytes: payload.length });
          res.writeHead(answer.status, responseHeaders).end(payload);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    get fault() {
      return proxy.fault;
    },
    set fault(value: Fault | FaultRule | undefined) {
      proxy.fault = value;
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
