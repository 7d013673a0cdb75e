/**
 * CSRF and origin check for cookie requests and `login`. The custom `X-CSRF` header cannot be sent
 * cross-site without a CORS preflight, which this gateway never grants to foreign origins; the
 * Origin check refuses what a browser labels as coming from elsewhere.
 */

export interface CsrfOptions {
  /** Extra browser origins allowed to call with a cookie (ALLOWED_ORIGINS). */
  readonly allowedOrigins: readonly string[];
  /** How many proxy hops' X-Forwarded-* headers to trust (TRUST_PROXY); 0 ignores them. */
  readonly trustProxy: number;
}

export type CsrfVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: 'missing-header' | 'foreign-origin' };

function forwarded(headers: Headers, name: string, trustProxy: number): string | undefined {
  if (trustProxy <= 0) return undefined;
  const values = (headers.get(name) ?? '').split(',').map((value) => value.trim()).filter(Boolean);
  // The nearest trusted proxy appended the last entry; take the one `trustProxy` hops away.
  return values[Math.max(0, values.length - trustProxy)];
}

/** The gateway's own origin as the client sees it: its scheme and Host, or what trusted proxies say. */
export function ownOrigin(request: Request, trustProxy: number): string | undefined {
  const url = new URL(request.url);
  const proto = forwarded(request.headers, 'x-forwarded-proto', trustProxy) ?? url.protocol.replace(':', '');
  const host = forwarded(request.headers, 'x-forwarded-host', trustProxy) ?? request.headers.get('host') ?? url.host;
  try {
    return new URL(`${proto}://${host}`).origin;
  } catch {
    return undefined;
  }
}

export function checkCsrf(request: Request, options: CsrfOptions): CsrfVerdict {
  if (!request.headers.get('x-csrf')?.trim()) return { ok: false, reason: 'missing-header' };
  const origin = request.headers.get('origin');
  if (origin === null) return { ok: true };
  if (options.allowedOrigins.includes(origin)) return { ok: true };
  if (origin !== 'null' && origin === ownOrigin(request, options.trustProxy)) return { ok: true };
  return { ok: false, reason: 'foreign-origin' };
}
