import { describe, expect, it } from 'vitest';
import { clearSessionCookie, readSessionCookie, sessionCookieName, setSessionCookie } from '../../src/session/cookie';
import { checkCsrf, ownOrigin, type CsrfCheckOptions } from '../../src/session/csrf';

const URL_OF_GATEWAY = 'http://gw.local:4000/graphql';
const OWN_ORIGIN = 'http://gw.local:4000';
const DIRECT: CsrfCheckOptions = { allowedOrigins: [], trustProxy: 0 };

function request(headers: Record<string, string>): Request {
  return new Request(URL_OF_GATEWAY, { method: 'POST', headers });
}

describe('checkCsrf', () => {
  it('refuses a request without X-CSRF', () => {
    expect(checkCsrf(request({ origin: OWN_ORIGIN }), DIRECT)).toEqual({ ok: false, reason: 'missing-header' });
  });

  it('refuses a blank X-CSRF', () => {
    expect(checkCsrf(request({ 'x-csrf': '   ' }), DIRECT)).toEqual({ ok: false, reason: 'missing-header' });
  });

  it('accepts X-CSRF with no Origin', () => {
    expect(checkCsrf(request({ 'x-csrf': '1' }), DIRECT)).toEqual({ ok: true });
  });

  it('accepts an Origin equal to its own origin', () => {
    expect(checkCsrf(request({ 'x-csrf': '1', origin: OWN_ORIGIN }), DIRECT)).toEqual({ ok: true });
  });

  it('refuses a foreign origin, naming it and its own', () => {
    expect(checkCsrf(request({ 'x-csrf': '1', origin: 'https://evil.example' }), DIRECT)).toEqual({ ok: false, reason: 'foreign-origin', origin: 'https://evil.example', own: OWN_ORIGIN });
  });

  it('refuses its own host on another scheme or port', () => {
    expect(checkCsrf(request({ 'x-csrf': '1', origin: 'https://gw.local:4000' }), DIRECT)).toMatchObject({ ok: false, reason: 'foreign-origin' });
    expect(checkCsrf(request({ 'x-csrf': '1', origin: 'http://gw.local:4001' }), DIRECT)).toMatchObject({ ok: false, reason: 'foreign-origin' });
  });

  it('accepts an origin listed in allowedOrigins', () => {
    const options: CsrfCheckOptions = { allowedOrigins: ['https://app.example.com'], trustProxy: 0 };
    expect(checkCsrf(request({ 'x-csrf': '1', origin: 'https://app.example.com' }), options)).toEqual({ ok: true });
    expect(checkCsrf(request({ 'x-csrf': '1', origin: 'https://other.example.com' }), options)).toMatchObject({ ok: false, reason: 'foreign-origin' });
  });

  it('refuses Origin: null', () => {
    expect(checkCsrf(request({ 'x-csrf': '1', origin: 'null' }), DIRECT)).toMatchObject({ ok: false, reason: 'foreign-origin' });
  });

  it('compares the Origin with the Host header', () => {
    const req = request({ 'x-csrf': '1', host: 'gw.example.com:8443', origin: 'http://gw.example.com:8443' });
    expect(ownOrigin(req, 0)).toBe('http://gw.example.com:8443');
    expect(checkCsrf(req, DIRECT)).toEqual({ ok: true });
  });

  it('ignores X-Forwarded-Proto and X-Forwarded-Host when trustProxy is 0', () => {
    const req = request({
      'x-csrf': '1',
      origin: 'https://gw.example.com',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'gw.example.com',
    });
    expect(ownOrigin(req, 0)).toBe(OWN_ORIGIN);
    expect(checkCsrf(req, DIRECT)).toMatchObject({ ok: false, reason: 'foreign-origin' });
  });

  it('honours X-Forwarded-Proto and X-Forwarded-Host when trustProxy is 1', () => {
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'gw.example.com' };
    expect(ownOrigin(request(headers), 1)).toBe('https://gw.example.com');
    expect(checkCsrf(request({ ...headers, 'x-csrf': '1', origin: 'https://gw.example.com' }), { allowedOrigins: [], trustProxy: 1 })).toEqual({ ok: true });
    expect(checkCsrf(request({ ...headers, 'x-csrf': '1', origin: OWN_ORIGIN }), { allowedOrigins: [], trustProxy: 1 })).toMatchObject({ ok: false, reason: 'foreign-origin' });
  });

  it('takes the forwarded entry trustProxy hops away', () => {
    const req = request({ 'x-forwarded-proto': 'http, https', 'x-forwarded-host': 'spoofed.example, gw.example.com' });
    expect(ownOrigin(req, 1)).toBe('https://gw.example.com');
    expect(ownOrigin(req, 2)).toBe('http://spoofed.example');
  });
});

describe('the session cookie', () => {
  function attributes(header: string): string[] {
    return header.split(';').map((part) => part.trim());
  }

  it('is __Host- prefixed, HttpOnly, SameSite=Strict, Path=/, Secure and without Domain when secure', () => {
    const header = setSessionCookie('the-id', { secure: true });
    const parts = attributes(header);
    expect(header.startsWith('__Host-sgw_session=the-id')).toBe(true);
    expect(parts).toContain('HttpOnly');
    expect(parts).toContain('SameSite=Strict');
    expect(parts).toContain('Path=/');
    expect(parts).toContain('Secure');
    expect(header).not.toMatch(/domain/i);
  });

  it('is a browser-session cookie: no Max-Age and no Expires (the timeouts live on the server)', () => {
    for (const secure of [true, false]) {
      const header = setSessionCookie('the-id', { secure });
      expect(header).not.toMatch(/max-age/i);
      expect(header).not.toMatch(/expires/i);
    }
  });

  it('is named sgw_session and not Secure when not secure', () => {
    const header = setSessionCookie('the-id', { secure: false });
    const parts = attributes(header);
    expect(header.startsWith('sgw_session=the-id')).toBe(true);
    expect(parts).not.toContain('Secure');
    expect(parts).toContain('HttpOnly');
    expect(parts).toContain('SameSite=Strict');
    expect(header).not.toMatch(/domain/i);
  });

  it('is cleared with Max-Age=0 under the same name', () => {
    for (const secure of [true, false]) {
      const header = clearSessionCookie(secure);
      expect(header.startsWith(`${sessionCookieName(secure)}=;`)).toBe(true);
      expect(attributes(header)).toContain('Max-Age=0');
    }
  });

  it('is read under the right name and the other name is ignored', () => {
    const both = '__Host-sgw_session=secure-id; sgw_session=plain-id; other=x';
    expect(readSessionCookie(both, true)).toBe('secure-id');
    expect(readSessionCookie(both, false)).toBe('plain-id');
    expect(readSessionCookie('sgw_session=plain-id', true)).toBeUndefined();
    expect(readSessionCookie('__Host-sgw_session=secure-id', false)).toBeUndefined();
    expect(readSessionCookie(null, true)).toBeUndefined();
  });
});
