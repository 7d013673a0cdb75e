/**
 * HTTP/1.1 over a raw socket, for what fetch hides: a client that sends its whole body before it
 * reads anything (as blocking clients do), so a server that resets the connection instead of
 * letting the client read its answer makes the exchange fail here.
 */
import net from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** A socket error seen before the answer was read whole (ECONNRESET, EPIPE). */
  readonly error?: string;
}

function parse(raw: string): Omit<RawAnswer, 'error'> {
  const end = raw.indexOf('\r\n\r\n');
  const head = end >= 0 ? raw.slice(0, end) : raw;
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = end >= 0 ? raw.slice(end + 4) : '';
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = '';
    for (let rest = body; rest.length; ) {
      const lineEnd = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, lineEnd), 16);
      if (!(size > 0)) break;
      decoded += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      rest = rest.slice(lineEnd + 2 + size + 2);
    }
    body = decoded;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body };
}

/**
 * Sends `head` (the request line and headers, without the blank line) and the body pieces, each
 * written whole before the next (and `pauseMs` after each), and only then starts reading the
 * answer (until the server closes).
 */
export function sendThenRead(url: string, head: string, pieces: readonly Buffer[], timeoutMs = 10_000, pauseMs = 0): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    socket.pause();
    const received: Buffer[] = [];
    let error: string | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in time'));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (cause: NodeJS.ErrnoException) => (error ??= cause.code ?? cause.message));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parse(Buffer.concat(received).toString('utf8')), ...(error ? { error } : {}) });
    });
    const write = (data: Buffer | string) => new Promise<void>((done) => (socket.write(data) ? done() : socket.once('drain', done)));
    const send = async () => {
      await write(`${head}\r\n\r\n`);
      for (const piece of pieces) {
        await write(piece);
        // A slow client (pauseMs): the server answers while the body is still arriving.
        if (pauseMs > 0) await new Promise((done) => setTimeout(done, pauseMs));
      }
      // Everything is sent: now read, as a client that reads only after sending would.
      setTimeout(() => socket.resume(), 50);
    };
    socket.on('connect', () => void send());
  });
}

/** A body as HTTP/1.1 chunks of `size` bytes, then the terminal chunk. */
export function chunked(body: Buffer, size = 64 * 1024): Buffer[] {
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += size) {
    const part = body.subarray(offset, offset + size);
    pieces.push(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]));
  }
  pieces.push(Buffer.from('0\r\n\r\n'));
  return pieces;
}

/**
 * A slow client: opens a connection and sends `head` one byte every `intervalMs`, never finishing
 * it. Resolves when the server closes the connection (or after `giveUpMs`): how long it stayed
 * open from the first byte (where the server's headers deadline starts), and the status line the
 * server answered with before closing, if any.
 */
export function dripUntilClosed(url: string, head: string, intervalMs = 1_000, giveUpMs = 60_000): Promise<{ openMs: number; statusLine: string; gaveUp: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let started = performance.now();
    let received = '';
    let sent = 0;
    let drip: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => finish(true), giveUpMs);
    const finish = (gaveUp: boolean) => {
      clearInterval(drip);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ openMs: performance.now() - started, statusLine: received.split('\r\n')[0] ?? '', gaveUp });
    };
    socket.on('connect', () => {
      socket.setNoDelay(true);
      drip = setInterval(() => {
        if (sent === 0) started = performance.now();
        if (sent < head.length && socket.writable) socket.write(head[sent++] ?? '');
      }, intervalMs);
    });
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => finish(false));
  });
}

/** Whether nothing listens at the URL's host and port any more (the connection is refused). */
export function connectionRefused(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/**
 * One request written byte for byte (`requestLine`, then `headers` as given, then a Content-Length
 * for a body and `Connection: close`): what fetch and node:http would normalise or refuse to send,
 * such as `..` segments, a raw backslash, an absolute-form target, a Host of any bytes or none.
 */
export function rawRequest(url: string, requestLine: string, headers: readonly string[], body?: string): Promise<RawAnswer> {
  const lines = [requestLine, ...headers, ...(body === undefined ? [] : [`Content-Length: ${Buffer.byteLength(body)}`]), 'Connection: close'];
  return sendThenRead(url, lines.join('\r\n'), body === undefined ? [] : [Buffer.from(body)]);
}
