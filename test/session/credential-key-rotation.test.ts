/**
 * Rotating CREDENTIAL_KEY without signing everyone out: replicas restarted with the new key and the
 * old one in CREDENTIAL_KEY_PREVIOUS still open what the old key sealed, and seal anew with the new
 * key; once the old key is dropped, what only it sealed is unusable (the session ends, cleanly).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { signedInUser } from '../support/cache';
import { useEmulator } from '../support/emulator';
import { Browser, startTestGateway, TEST_REDIS_URL, type TestGateway } from '../support/gateway';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const READ = '{ getStatements { statements { nodes { otxId } } } }';

let running: TestGateway | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function gatewayWith(keys: { CREDENTIAL_KEY: string; CREDENTIAL_KEY_PREVIOUS?: string }): Promise<string> {
  await running?.stop();
  running = await startTestGateway({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, ...keys });
  return running.url;
}

/** The same cookie, on another gateway process. */
function sameCookie(browser: Browser, url: string): Browser {
  const moved = new Browser(url);
  moved.cookie = browser.cookie;
  return moved;
}

describe('CREDENTIAL_KEY rotation', () => {
  it('keeps sessions through a restart with the old key as previous, and ends them once it is dropped', async () => {
    const oldKey = randomBytes(32).toString('base64');
    const newKey = randomBytes(32).toString('base64');

    const before = await signedInUser(await gatewayWith({ CREDENTIAL_KEY: oldKey }), sandbox.url, { count: 1 });
    expect((await before.browser.graphql(READ)).codes).toEqual([]);

    // Rotated: new key, old key still accepted. The session sealed with the old key goes on.
    const rotatingUrl = await gatewayWith({ CREDENTIAL_KEY: newKey, CREDENTIAL_KEY_PREVIOUS: oldKey });
    const carried = sameCookie(before.browser, rotatingUrl);
    const read = await carried.graphql(READ);
    expect(read.codes).toEqual([]);
    expect(read.body.data?.getStatements.statements.nodes).toHaveLength(1);
    // A login now is sealed with the new key.
    const during = await signedInUser(rotatingUrl, sandbox.url, { count: 1 });

    // The old key dropped: the new session works, the old-key session is refused and its cookie cleared.
    const afterUrl = await gatewayWith({ CREDENTIAL_KEY: newKey });
    expect((await sameCookie(during.browser, afterUrl).graphql(READ)).codes).toEqual([]);
    const stale = sameCookie(before.browser, afterUrl);
    const refused = await stale.graphql(READ);
    expect(refused.codes).toEqual(['UNAUTHENTICATED']);
    expect(stale.cookie).toBeUndefined();
    expect(JSON.stringify(refused.body)).not.toMatch(/key|decrypt|cipher/i);
    // Signing in again works.
    expect((await stale.login(before.email, 'a-long-enough-password-123')).codes).toEqual([]);
    expect((await stale.graphql(READ)).codes).toEqual([]);
  });
});
