/**
 * The session cookie. HttpOnly (scripts cannot read it), SameSite=Strict (other sites cannot send
 * it), Path=/, and with COOKIE_SECURE the `Secure` flag and the `__Host-` prefix (only this host,
 * over TLS, cannot be set by a sibling subdomain).
 */
import { parse, serialize } from 'cookie';

export interface SessionCookieOptions {
  readonly secure: boolean;
  /** Max-Age in seconds: the absolute session lifetime. */
  readonly maxAgeSeconds: number;
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

export function setSessionCookie(id: string, options: SessionCookieOptions): string {
  return serialize(sessionCookieName(options.secure), id, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: options.secure,
    maxAge: Math.max(1, Math.floor(options.maxAgeSeconds)),
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
