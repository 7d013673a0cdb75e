/**
 * A static host for a built frontend (a Vite `dist/`) on a loopback port, as a CDN or nginx would
 * serve it in front of the gateway: the page's origin is this server's, not the gateway's.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

export interface StaticServer {
  /** `http://127.0.0.1:<port>`: the origin a browser sees for pages served here. */
  readonly origin: string;
  /** The directory served; may be set after the server starts (the build needs the gateway's URL). */
  root: string;
  close(): Promise<void>;
}

/** Serves `root` (files, `/` as index.html) on 127.0.0.1 and a free port. */
export async function serveStatic(root = ''): Promise<StaticServer> {
  const handle: { root: string } = { root };
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
    const base = path.resolve(handle.root);
    const file = path.resolve(base, `.${pathname === '/' ? '/index.html' : pathname}`);
    if (!handle.root || !file.startsWith(base + path.sep)) {
      response.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => response.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(body),
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    get root() {
      return handle.root;
    },
    set root(value: string) {
      handle.root = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
