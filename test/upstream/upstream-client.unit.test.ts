/**
 * The gateway's upstream HTTP client (src/upstream/fetch.ts, undici's `request`) against a real
 * HTTP server on loopback: it must answer what `fetch` would (decoded bodies, every header,
 * redirects handed back, bodiless statuses) and measure each call.
 */
import { getEventListeners } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogEvents } from '../../src/observability/log-events';
import { createLogger } from '../../src/observability/logger';
import { createMetrics } from '../../src/observability/metrics';
import { createUpstreamFetch } from '../../src/upstream/fetch';
import { parseMetrics } from '../support/metrics';

const BODY = JSON.stringify({ data: { secretGreeting: { response: 'x'.repeat(5_000) } } });
const ENCODERS: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  'raw-deflate': deflateRawSync,
  br: brotliCompressSync,
};

let server: Server;
let base: string;
let received: IncomingHttpHeaders[] = [];
const metrics = createMetrics();
const upstreamFetch = createUpstreamFetch({ timeoutMs: 2_000, log: createLogEvents(createLogger({ level: 'silent' })), metrics });
const call = (path: string, init: RequestInit = {}) => upstreamFetch(`${base}${path}`, init, { environment: 'sandbox', operation: 'test' });

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://x');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const encoding = url.searchParams.get('encoding');
      if (url.pathname === '/echo') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(Buffer.concat(chunks));
      } else if (url.pathname === '/encoded' && encoding) {
        const encode = ENCODERS[encoding];
        if (!encode) throw new Error(encoding);
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding === 'raw-deflate' ? 'deflate' : encoding });
        res.end(encode(Buffer.from(BODY)));
      } else if (url.pathname === '/cookies') {
        res.writeHead(200, [['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['access-token', 'tok'], ['content-type', 'text/plain']]);
        res.end('ok');
      } else if (url.pathname === '/redirect') {
        res.writeHead(302, { location: `${base}/echo` });
        res.end();
      } else if (url.pathname === '/empty') {
        res.writeHead(204);
        res.end();
      } else if (url.pathname === '/slow') {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('late');
        }, 300);
      } else if (url.pathname === '/huge') {
        // 2 MiB, chunked (no length declared), declared, or gzipped to a few KiB.
        const bytes = Buffer.alloc(2 * 1024 * 1024, 'x');
        const mode = url.searchParams.get('mode');
        if (mode === 'gzip') res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        else res.writeHead(200, mode === 'declared' ? { 'content-type': 'application/json', 'content-length': String(bytes.byteLength) } : { 'content-type': 'application/json' });
        if (mode === 'gzip') res.end(gzipSync(bytes));
        else for (let i = 0; i < 32; i++) res.write(bytes.subarray(i * 65_536, (i + 1) * 65_536));
        res.end();
      } else if (url.pathname === '/broken') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`stack trace at ${base}`);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('the upstream client', () => {
  it.each(Object.keys(ENCODERS))('asks for compressed answers and decodes %s as fetch does', async (encoding) => {
    received = [];
    const response = await call(`/encoded?encoding=${encoding}`, { method: 'POST', body: '{}' });
    expect(await response.text()).toBe(BODY);
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(received[0]?.['accept-encoding']).toBe('gzip, deflate, br');
    expect(received[0]?.['user-agent']).toBe('statement-gateway');
  });

  it('sends string, ArrayBuffer and byte bodies byte for byte, and the caller\'s headers as given', async () => {
    const bytes = Uint8Array.from([0, 1, 2, 254, 255]);
    for (const body of ['{"query":"{ a }"}', bytes.buffer.slice(0), bytes]) {
      received = [];
      const response = await call('/echo', { method: 'POST', body, headers: new Headers({ 'X-Custom': 'one', accept: 'application/json' }) });
      const echoed = new Uint8Array(await response.arrayBuffer());
      expect(echoed).toEqual(typeof body === 'string' ? new TextEncoder().encode(body) : bytes);
      expect(received[0]?.['x-custom']).toBe('one');
      expect(received[0]?.accept).toBe('application/json');
    }
  });

  it('keeps every header of the answer, each set-cookie apart', async () => {
    const response = await call('/cookies');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(response.headers.get('access-token')).toBe('tok');
    expect(await response.text()).toBe('ok');
  });

  it('hands a redirect back instead of following it, and answers a 204 without a body', async () => {
    const redirect = await call('/redirect');
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe(`${base}/echo`);
    const empty = await call('/empty');
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('turns a 5xx into UPSTREAM_UNAVAILABLE without the upstream\'s body or address, and measures each call', async () => {
    const before = parseMetrics(await metrics.registry.metrics()).sum('statement_gateway_upstream_request_duration_seconds_count', { operation: 'test', outcome: 'error' });
    const error = await call('/broken').then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
    expect(String((error as Error).message)).not.toContain('127.0.0.1');
    const after = parseMetrics(await metrics.registry.metrics()).sum('statement_gateway_upstream_request_duration_seconds_count', { operation: 'test', outcome: 'error' });
    expect(after - before).toBe(1);
  });

  it('leaves nothing behind on a long-lived caller signal (Mesh passes one per executor)', async () => {
    const lifetime = new AbortController();
    await Promise.all(Array.from({ length: 30 }, () => call('/echo', { method: 'POST', body: 'x', signal: lifetime.signal })));
    expect(getEventListeners(lifetime.signal, 'abort')).toHaveLength(0);
    // Node 20's AbortSignal.any kept a WeakRef per call in the source signal's dependants.
    const dependants = Object.getOwnPropertySymbols(lifetime.signal).find((symbol) => symbol.description === 'kDependantSignals');
    const set = dependants ? (lifetime.signal as unknown as Record<symbol, Set<unknown> | undefined>)[dependants] : undefined;
    expect(set?.size ?? 0).toBe(0);
  });

  it('stops a call when its caller goes away, without measuring it as the upstream\'s failure', async () => {
    const caller = new AbortController();
    const pending = call('/slow', { signal: caller.signal });
    setTimeout(() => caller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
  });

  it.each(['chunked', 'declared', 'gzip'])('refuses a %s answer over its byte bound as UPSTREAM_ERROR instead of holding it in memory', async (mode) => {
    const bounded = createUpstreamFetch({ timeoutMs: 2_000, maxAnswerBytes: 1024 * 1024, log: createLogEvents(createLogger({ level: 'silent' })), metrics });
    await expect(bounded(`${base}/huge?mode=${mode}`, {}, { environment: 'sandbox', operation: 'huge' })).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_ERROR' } });
    const whole = await call(`/huge?mode=${mode}`);
    expect((await whole.arrayBuffer()).byteLength).toBe(2 * 1024 * 1024);
  });

  it('times out past its limit with the timeout outcome', async () => {
    const quick = createUpstreamFetch({ timeoutMs: 100, log: createLogEvents(createLogger({ level: 'silent' })), metrics });
    const before = parseMetrics(await metrics.registry.metrics()).sum('statement_gateway_upstream_request_duration_seconds_count', { operation: 'slow', outcome: 'timeout' });
    await expect(quick(`${base}/slow`, {}, { environment: 'sandbox', operation: 'slow' })).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
    const after = parseMetrics(await metrics.registry.metrics()).sum('statement_gateway_upstream_request_duration_seconds_count', { operation: 'slow', outcome: 'timeout' });
    expect(after - before).toBe(1);
  });
});
