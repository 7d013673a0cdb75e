/**
 * The client's address, for limits by address: the socket's peer, or an `X-Forwarded-For` entry
 * only as far as TRUST_PROXY hops are trusted (the same rule as Express's numeric `trust proxy`):
 * with n trusted hops, the address is the n-th from the right of [...X-Forwarded-For, socket].
 */
import type { IncomingMessage } from 'node:http';

export function clientAddress(request: Request, serverContext: unknown, trustProxy: number): string {
  const socket = (serverContext as { req?: IncomingMessage } | undefined)?.req?.socket.remoteAddress ?? 'unknown';
  if (trustProxy <= 0) return socket;
  const forwarded = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const chain = [...forwarded, socket];
  return chain[Math.max(0, chain.length - 1 - trustProxy)] ?? socket;
}
