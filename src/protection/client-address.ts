/**
 * The client's address, for limits by address: the socket's peer, or an `X-Forwarded-For` entry
 * only as far as TRUST_PROXY hops are trusted (the same rule as Express's numeric `trust proxy`):
 * with n trusted hops, the address is the n-th from the right of [...X-Forwarded-For, socket].
 */
import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import type { Plugin } from 'graphql-yoga';
import { RequestSlot } from '../request/slot';

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

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The group an address is limited as: an IPv4 address itself (also when written IPv4-mapped,
 * `::ffff:a.b.c.d`, as a dual-stack socket reports it), and an IPv6 address by its /64. One
 * subscriber usually holds a whole /64 and can use any of its 2^64 addresses, so a limit per
 * IPv6 address would not limit anyone. Anything else (no address known) is its own group.
 */
export function addressGroup(address: string): string {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare.toLowerCase());
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}

/** Each request's client address, as useClientAddress found it. */
export class ClientAddresses extends RequestSlot<string> {
  /** The request's client address ('unknown' before useClientAddress). */
  of(request: Request): string {
    return this.get(request) ?? 'unknown';
  }
}

/** Finds each request's client address once, first of all plugins (the socket is only known here). */
export function useClientAddress({ trustProxy, addresses }: { readonly trustProxy: number; readonly addresses: ClientAddresses }): Plugin {
  return {
    onRequest({ request, serverContext }) {
      addresses.set(request, clientAddress(request, serverContext, trustProxy));
    },
  };
}
