/**
 * The start banner says when the session cookie is Secure (COOKIE_SECURE, on by default once
 * upstream URLs are set), since a plain-http LAN or Docker host name then loses the cookie.
 */
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../support/emulator';
import { startTestGateway } from '../support/gateway';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const SECURE_NOTE = 'Session cookie: Secure (__Host-sgw_session) with HSTS';

describe('the start banner', () => {
  it('says the cookie is Secure, and the fix for plain http, when upstream URLs turn COOKIE_SECURE on', async () => {
    const gateway = await startTestGateway({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url });
    try {
      expect(gateway.output()).toContain(SECURE_NOTE);
      expect(gateway.output()).toContain('serve TLS or set COOKIE_SECURE=false');
    } finally {
      await gateway.stop();
    }
  });

  it('says nothing of it with COOKIE_SECURE=false', async () => {
    const gateway = await startTestGateway({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, COOKIE_SECURE: 'false' });
    try {
      expect(gateway.output()).toContain('Statement gateway on');
      expect(gateway.output()).not.toContain(SECURE_NOTE);
    } finally {
      await gateway.stop();
    }
  });
});
