/**
 * CSRF and origin check for cookie requests and `login`. The custom `X-CSRF` header cannot be sent
 * cross-site without a CORS preflight, which this gateway never grants to foreign origins; the
 * Origin check refuses what a browser labels as coming from elsewhere.
 */

/** The deployment's origins and proxies, as the check reads them. */
export interface CsrfCheckOptions {
  /** Extra browser origins allowed to call with a cookie (ALLOWED_ORIGINS). */
  readonly allowedOrigins: readonly string[];
  /** How many proxy hops' X-Forwarded-* headers to trust (TRUST_PROXY); 0 ignores them. */
  readonly trustProxy: number;
}

export type CsrfVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'missing-header' }
  /** `origin`: what the browser sent; `own`: the gateway's origin as this request shows it (scheme and Host). */
  | { readonly ok: false; readonly reason: 'foreign-origin'; readonly origin: string; readonly own: string | undefined };

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

export function checkCsrf(request: Request, options: CsrfCheckOptions): CsrfVerdict {
  if (!request.headers.get('x-csrf')?.trim()) return { ok: false, reason: 'missing-header' };
  return checkOrigin(request, options);
}

/**
 * The origin check alone, for what a browser sends without a script (a download link cannot add
 * X-CSRF): no Origin, the gateway's own or an allowed one passes; any other is refused.
 */
export function checkOrigin(request: Request, options: CsrfCheckOptions): CsrfVerdict {
  const origin = request.headers.get('origin');
  if (origin === null) return { ok: true };
  if (options.allowedOrigins.includes(origin)) return { ok: true };
  const own = ownOrigin(request, options.trustProxy);
  if (origin !== 'null' && origin === own) return { ok: true };
  return { ok: false, reason: 'foreign-origin', origin, own };
}

/** Longer origins are cut in messages and logs (a client chooses the header). */
const SHOWN_ORIGIN_LENGTH = 200;
const shown = (origin: string) => JSON.stringify(origin.length > SHOWN_ORIGIN_LENGTH ? `${origin.slice(0, SHOWN_ORIGIN_LENGTH)}...` : origin);

/**
 * What a refused developer needs to read: which check failed, and for the origin check the origin
 * seen and the gateway's own as this request shows it (a dev proxy that rewrites Host, such as
 * Vite's changeOrigin, makes the two differ).
 */
export function csrfMessage(verdict: Exclude<CsrfVerdict, { ok: true }>): string {
  if (verdict.reason === 'missing-header') {
    return 'Cross-site request refused: no X-CSRF header. Send X-CSRF (any non-empty value) with login and with every request that carries the session cookie.';
  }
  const own = verdict.own === undefined ? 'unknown' : shown(verdict.own);
  return `Cross-site request refused: the origin ${shown(verdict.origin)} is not allowed. Allowed: the gateway's own origin (${own}, from this request's scheme and Host) and ALLOWED_ORIGINS.`;
}

/** The verdict's fields for the log (the origin cut to a bounded length). */
export function csrfLogFields(verdict: Exclude<CsrfVerdict, { ok: true }>): { reason: string; origin?: string } {
  return verdict.reason === 'missing-header' ? { reason: verdict.reason } : { reason: verdict.reason, origin: verdict.origin.slice(0, SHOWN_ORIGIN_LENGTH) };
}
