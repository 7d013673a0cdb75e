/**
 * The session cookie. HttpOnly (scripts cannot read it), SameSite=Strict (other sites cannot send
 * it), Path=/, and with COOKIE_SECURE the `Secure` flag and the `__Host-` prefix (only this host,
 * over TLS, cannot be set by a sibling subdomain). A browser-session cookie: no Max-Age or Expires,
 * so the browser forgets it when it closes (OWASP's advice for session ids); the idle and absolute
 * timeouts are the server's (src/session/sessions.ts), which a cookie's lifetime could not enforce.
 */
import { parse, serialize } from 'cookie';
import { RequestSlot } from '../request/slot';

export interface SessionCookieOptions {
  readonly secure: boolean;
}

export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-sgw_session' : 'sgw_session';
}

export function readSessionCookie(header: string | null, secure: boolean): string | undefined {
  if (!header) return undefined;
  try {
    return parse(header)[sessionCookieName(secure)];
  } catch {
    return undefined;
  }
}

/**
 * The session id each request's cookie carries, parsed once per request: the CSRF check, the
 * session strategy and the audit trail all ask.
 */
export class SessionCookies extends RequestSlot<string | undefined> {
  of(request: Request, secure: boolean): string | undefined {
    return this.ensure(request, () => readSessionCookie(request.headers.get('cookie'), secure));
  }
}

export function setSessionCookie(id: string, options: SessionCookieOptions): string {
  return serialize(sessionCookieName(options.secure), id, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: options.secure,
  });
}

export function clearSessionCookie(secure: boolean): string {
  return serialize(sessionCookieName(secure), '', {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure,
    maxAge: 0,
    expires: new Date(0),
  });
}
