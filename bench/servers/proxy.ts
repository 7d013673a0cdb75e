/**
 * A raw Node HTTP proxy for `npm run bench`, run as its own process: it forwards the method, path,
 * headers and body of each request to BENCH_TARGET through an undici Pool and streams the answer
 * back. No GraphQL parsing, no sessions: the floor for any Node gateway.
 *
 * The same program is the byte counter between our gateway and an emulator (BENCH_COUNT=1): it
 * then buffers each answer and counts its bytes and the bytes of the base-64 PDFs in it
 * (`"pdf":"…"` values), readable at GET /__bench/counters and reset by DELETE /__bench/counters.
 *
 * Listens on 127.0.0.1 on a free port and prints `listening <url>` on stdout.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { serveOnLoopback } from './serve';
import { Pool } from 'undici';

const targetText = process.env.BENCH_TARGET;
if (!targetText) {
  console.error('bench proxy: BENCH_TARGET is required');
  process.exit(2);
}
const target = new URL(targetText);
if (target.hostname !== '127.0.0.1') {
  console.error('bench proxy: BENCH_TARGET must be on 127.0.0.1');
  process.exit(2);
}
const counting = process.env.BENCH_COUNT === '1';
const pool = new Pool(target.origin, { connections: 256, keepAliveTimeout: 60_000 });

/** Hop-by-hop headers (RFC 9110 7.6.1) and the Host, which undici sets for the target. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

function forwardable(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

const counters = { responses: 0, bytes: 0, pdfBytes: 0 };
const PDF_VALUE = /"pdf":"([^"]*)"/g;

function control(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'DELETE') Object.assign(counters, { responses: 0, bytes: 0, pdfBytes: 0 });
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counters));
}

async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = (req.method ?? 'GET') as 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const upstream = await pool.request({ method, path: req.url ?? '/', headers: forwardable(req.headers), body: hasBody ? req : null });
  const headers = forwardable(upstream.headers);
  if (!counting) {
    res.writeHead(upstream.statusCode, headers);
    for await (const chunk of upstream.body) res.write(chunk as Buffer);
    res.end();
    return;
  }
  const body = Buffer.from(await upstream.body.arrayBuffer());
  counters.responses++;
  counters.bytes += body.length;
  for (const match of body.toString('latin1').matchAll(PDF_VALUE)) counters.pdfBytes += match[1]?.length ?? 0;
  res.writeHead(upstream.statusCode, headers).end(body);
}

const server = createServer((req, res) => {
  if (counting && req.url === '/__bench/counters') return control(req, res);
  forward(req, res).catch(() => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"bad gateway"}');
    else res.destroy();
  });
});
serveOnLoopback(server, () => pool.close());
