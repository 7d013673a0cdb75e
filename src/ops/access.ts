/**
 * Who may read the operator endpoints (`/ops/` and `/metrics`): they show login failures, rate
 * limits and service-account names, which help an attacker time and aim a guessing run.
 *
 * With OPS_TOKEN set, HTTP Basic (any user name, the token as password: a browser asks) or
 * `Authorization: Bearer <token>` (Prometheus' `authorization` setting); without it, loopback
 * clients only (the socket's own address, never X-Forwarded-For). A request that came through a
 * proxy (TRUST_PROXY set, or an X-Forwarded-For header) is not treated as loopback: a proxy on the
 * same host would otherwise open the endpoints to everyone.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface OpsAccessOptions {
  readonly token?: string;
  readonly trustProxy: number;
}

/** `ok`; `unauthorized` (a token is needed: 401); `hidden` (not for this client: 404, as an unknown path). */
export type OpsVerdict = 'ok' | 'unauthorized' | 'hidden';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The token a request presents: the Basic password or the Bearer token. */
function presentedToken(authorization: string | null): string | undefined {
  if (!authorization) return undefined;
  const [scheme = '', value = ''] = authorization.trim().split(/\s+/, 2);
  if (/^bearer$/i.test(scheme)) return value;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  return undefined;
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

export function createOpsAccess({ token, trustProxy }: OpsAccessOptions): (request: Request, serverContext: unknown) => OpsVerdict {
  const expected = token ? digest(token) : undefined;
  return (request, serverContext) => {
    if (expected) {
      const presented = presentedToken(request.headers.get('authorization'));
      return presented !== undefined && timingSafeEqual(digest(presented), expected) ? 'ok' : 'unauthorized';
    }
    if (trustProxy > 0 || request.headers.has('x-forwarded-for')) return 'hidden';
    const socket = (serverContext as { req?: IncomingMessage } | undefined)?.req?.socket.remoteAddress;
    return isLoopback(socket) ? 'ok' : 'hidden';
  };
}
