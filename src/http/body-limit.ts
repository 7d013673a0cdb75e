/**
 * The request body limit (MAX_BODY_BYTES), before Yoga reads anything.
 *
 * - A `Content-Length` within the limit goes straight on: Node's parser never reads past it, so
 *   nothing needs counting (the fast path; Yoga's own size check is off, see gateway/server.ts).
 * - A chunked body (streaming clients: Node's http.request without a length, Go's io.Pipe, Java's
 *   BodyPublishers.ofInputStream, `curl -T -`) is counted while it arrives and handed to Yoga
 *   whole once complete; Yoga would read it whole into memory anyway.
 * - Over the limit (declared, or counted so far): 413 with a JSON error and `Connection: close`.
 *   The rest of the body is then read and dropped for a bounded time and size before the socket
 *   closes: closing a socket with unread bytes makes the kernel send a reset, and a client that
 *   reads only after it has sent its body (most blocking clients) would see the reset, not the 413.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AsyncResource } from 'node:async_hooks';
import type { Socket } from 'node:net';
import { errorAnswer, type ErrorAnswer } from '../errors';

/** A limit of its own for some paths: its size, how much of a refused body is drained, and its 413. */
export interface BodyLimitRule {
  readonly maxBytes: number;
  readonly lingerBytes?: number;
  /** The 413 written (with its Content-Length); the gateway's PAYLOAD_TOO_LARGE unless given. */
  readonly answer?: ErrorAnswer;
}

export interface BodyLimitOptions {
  readonly maxBytes: number;
  /** How long the rest of a refused body is drained before the socket closes anyway. */
  readonly lingerMs?: number;
  /** How much of a refused body is drained before the socket closes anyway. */
  readonly lingerBytes?: number;
  /**
   * The rule of a request whose path has a limit of its own (the drop-in front's is the
   * upstream's: src/drop-in/front-limits.ts), undefined for the others. The edge checked the
   * request target before this runs.
   */
  readonly ruleFor?: (req: IncomingMessage) => BodyLimitRule | undefined;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The body read here, in a form whatwg-node's normalizeNodeRequest takes as it is (`req.body`
 * with at least one own enumerable key, and a Blob): a Buffer would do too, but it runs
 * Object.keys over the body first, which lists every byte index: time that grows with the body.
 */
export function countedBody(chunks: Buffer[]): Blob {
  // Socket buffers are backed by plain ArrayBuffers, never shared ones.
  return Object.assign(new Blob(chunks as Uint8Array<ArrayBuffer>[]), { counted: true });
}

/** Answers 413, then drains what the client still sends (bounded) instead of resetting it. */
function refuse(refusedSockets: WeakSet<Socket>, req: IncomingMessage, res: ServerResponse, answer: ErrorAnswer, lingerMs: number, lingerBytes: number): void {
  const socket = req.socket as Socket & { destroySoon?: () => void };
  refusedSockets.add(socket);
  let drained = 0;
  const timer = setTimeout(() => socket.destroy(), lingerMs).unref();
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > lingerBytes) socket.destroy();
  });
  req.on('error', () => socket.destroy());
  // Node ends a `Connection: close` response with socket.destroySoon(), which closes the socket as
  // soon as the answer is written, unread bytes or not: here it half-closes instead (the client
  // reads the answer and then end of stream) and closes once the body has been read to its end.
  socket.destroySoon = () => {
    socket.end();
    const close = () => {
      clearTimeout(timer);
      socket.destroy();
    };
    if (req.complete) close();
    else req.once('end', close);
  };
  res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
  res.end(answer.body);
}

const gatewayTooLarge = (maxBytes: number): ErrorAnswer =>
  errorAnswer(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes.`, { headers: { connection: 'close' } });

export function bodyLimit({ maxBytes: defaultMax, lingerMs = 5_000, lingerBytes: defaultLinger = 16 * 1024 * 1024, ruleFor }: BodyLimitOptions, next: Listener): Listener {
  /**
   * Connections whose request was refused. Node's parser goes on reading while the refused body is
   * drained, so a request the client sent behind it on the same connection would still arrive, and
   * run after the client was told the connection closes (its socket already half-closed, so its
   * address unknown to the limits and the audit trail): such a request ends the connection instead.
   */
  const refusedSockets = new WeakSet<Socket>();
  return (req, res) => {
    if (refusedSockets.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    const rule = ruleFor?.(req);
    const maxBytes = rule?.maxBytes ?? defaultMax;
    const lingerBytes = rule?.lingerBytes ?? defaultLinger;
    // Made only for a request refused (every request made it before: 2 % of the hot path's CPU).
    const answer = () => rule?.answer ?? gatewayTooLarge(maxBytes);
    const length = req.headers['content-length'];
    if (length !== undefined) {
      if (Number(length) <= maxBytes) return next(req, res);
      return refuse(refusedSockets, req, res, answer(), lingerMs, lingerBytes);
    }
    if (req.headers['transfer-encoding'] === undefined) return next(req, res);
    // Chunked: counted as it arrives; Yoga gets the whole body (whatwg-node reads `req.body`).
    const chunks: Buffer[] = [];
    let received = 0;
    const proceed = AsyncResource.bind(() => {
      if (received > 0) (req as IncomingMessage & { body?: Blob }).body = countedBody(chunks);
      next(req, res);
    });
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      req.off('end', proceed);
      refuse(refusedSockets, req, res, answer(), lingerMs, lingerBytes);
    };
    req.on('data', onData);
    req.once('end', proceed);
  };
}

/**
 * For the server's `checkContinue` event: a client that asks before sending its body (`Expect:
 * 100-continue`, as curl does for large uploads) is told to go on only when the declared length
 * is within the limit; otherwise it gets the 413 at once and never sends the body.
 */
export function continueWithinLimit(maxBytes: number, listener: Listener, ruleFor?: BodyLimitOptions['ruleFor']): Listener {
  return (req, res) => {
    const length = req.headers['content-length'];
    if (length === undefined || Number(length) <= (ruleFor?.(req)?.maxBytes ?? maxBytes)) res.writeContinue();
    listener(req, res);
  };
}
