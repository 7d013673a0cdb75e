/**
 * The body limit on a plain Node server (no gateway): what reaches the listener, and how long a
 * refused client may go on sending before the socket closes (bounded in time and bytes).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyLimit, continueWithinLimit } from '../../src/http/body-limit';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** A server behind the limit whose listener answers with the body it got, as text. */
async function serve(options: Parameters<typeof bodyLimit>[0]): Promise<string> {
  const listener = bodyLimit(options, (req, res) => {
    const parsed = (req as IncomingMessage & { body?: Blob }).body;
    const read = parsed ? parsed.text() : new Promise<string>((resolve) => {
      let text = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
    });
    void read.then((text) => res.end(`got ${text.length}: ${text.slice(0, 20)}`));
  });
  server = createServer(listener);
  server.on('checkContinue', continueWithinLimit(options.maxBytes, listener));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Opens a raw connection, sends a chunked request head, and keeps writing chunks until closed. */
function streamForever(url: string, chunk: Buffer, everyMs: number): Promise<{ answer: string; sent: number; closedAfterMs: number }> {
  const { port } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    // Half-open: it goes on sending after the server's end of stream, as a stubborn client would.
    const socket = net.connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    let sent = 0;
    socket.setEncoding('utf8').on('data', (data: string) => (answer += data));
    socket.on('error', () => undefined);
    const timer = setInterval(() => {
      if (socket.destroyed || !socket.writable) return;
      socket.write(`${chunk.length.toString(16)}\r\n`);
      socket.write(chunk);
      socket.write('\r\n');
      sent += chunk.length;
    }, everyMs);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, sent, closedAfterMs: Date.now() - started });
    });
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
  });
}

/** The first line a server answers to a request head that asks `Expect: 100-continue`. */
function firstLineForExpect(url: string, length: number): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.setEncoding('utf8').once('data', (data: string) => {
      resolve(data.split('\r\n')[0] ?? '');
      socket.destroy();
    });
    socket.on('error', reject);
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`);
  });
}

/** Sends an over-limit body with a Content-Length and a second request right behind it on one connection. */
function refusedThenPipelined(url: string, length: number): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8').on('data', (data: string) => (answer += data));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n${'x'.repeat(length)}`);
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello');
  });
}

describe('bodyLimit', () => {
  it('answers Expect: 100-continue with 413 at once for a declared body over the limit, 100 Continue within it', async () => {
    const url = await serve({ maxBytes: 1_000 });
    expect(await firstLineForExpect(url, 5_000)).toBe('HTTP/1.1 413 Payload Too Large');
    expect(await firstLineForExpect(url, 1_000)).toBe('HTTP/1.1 100 Continue');
  });

  it('hands a chunked body within the limit to the listener whole', async () => {
    const url = await serve({ maxBytes: 100 });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of ['{"a":', '"0123456789"', '}']) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    const answer = await fetch(url, { method: 'POST', body, duplex: 'half' } as RequestInit);
    expect(await answer.text()).toBe('got 18: {"a":"0123456789"}');
  });

  it('passes a body with a Content-Length within the limit on unread (the fast path)', async () => {
    const url = await serve({ maxBytes: 100 });
    expect(await (await fetch(url, { method: 'POST', body: 'x'.repeat(100) })).text()).toBe(`got 100: ${'x'.repeat(20)}`);
  });

  it('answers 413 and closes once a refused client has sent lingerBytes more', async () => {
    const url = await serve({ maxBytes: 1_000, lingerMs: 10_000, lingerBytes: 200_000 });
    const result = await streamForever(url, Buffer.alloc(16_384, 0x20), 1);
    expect(result.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(result.answer).toContain('"PAYLOAD_TOO_LARGE"');
    expect(result.sent).toBeLessThan(1_000 + 200_000 + 16_384 * 64);
    expect(result.closedAfterMs).toBeLessThan(5_000);
  });

  it('never runs a request pipelined behind a refused body on the same connection (regression)', async () => {
    let reached = 0;
    const listener = bodyLimit({ maxBytes: 1_000 }, (_req, res) => {
      reached++;
      res.end('ran');
    });
    server = createServer(listener);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const answer = await refusedThenPipelined(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 5_000);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).not.toContain('ran');
    expect(reached).toBe(0);
  });

  it('answers 413 and closes after lingerMs when a refused client trickles on', async () => {
    const url = await serve({ maxBytes: 1_000, lingerMs: 300, lingerBytes: 16 * 1024 * 1024 });
    const result = await streamForever(url, Buffer.alloc(1_024, 0x20), 20);
    expect(result.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(result.closedAfterMs).toBeGreaterThanOrEqual(300);
    expect(result.closedAfterMs).toBeLessThan(2_000);
  });
});
