/**
 * ServiceAccountIdentity, in process: the identity serviceAccountStrategy makes of an API key,
 * with service accounts built as the runtime builds them, signing in over HTTP at the emulator.
 * The upstream's answers are real `Response`s handed to the identity as the credential broker
 * does: a 401 renews the credential once (one new sign-in), a second one refuses; a rotated token
 * is kept for the account. service-accounts.test.ts runs them through gateway processes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { serviceAccountStrategy, ServiceAccountIdentity } from '../../src/credentials/service-account-identity';
import type { ServiceAccount } from '../../src/credentials/service-accounts';
import { GatewayError } from '../../src/errors';
import { createMetrics } from '../../src/observability/metrics';
import { createMemoryRateLimitStore } from '../../src/protection/rate-limiter';
import { upstreamTarget } from '../../src/upstream/target';
import { capturedLog } from '../support/captured-log';
import { control, useEmulator } from '../support/emulator';
import { serviceAccountsFor } from '../support/identities';

const upstream = useEmulator('sandbox');

async function accountWithKey(options: { requestsPerMinute?: number } = {}) {
  const key = `sgw_${randomBytes(24).toString('base64url')}`;
  const account: ServiceAccount = {
    name: `spec-${randomBytes(4).toString('hex')}`,
    apiKeySha256: createHash('sha256').update(key).digest(),
    email: `svc-${randomBytes(4).toString('hex')}@example.com`,
    password: `service-password-${randomBytes(6).toString('hex')}`,
    environment: 'sandbox',
    requestsPerMinute: options.requestsPerMinute ?? 100,
  };
  expect((await control(upstream.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password })).status).toBe(201);
  const captured = capturedLog('debug');
  const { log } = captured;
  const metrics = createMetrics({ processMetrics: false });
  const upstreams = { sandbox: upstreamTarget('sandbox', upstream.url), production: upstreamTarget('production', 'http://production.test') };
  const serviceAccounts = serviceAccountsFor([account], { log, metrics, upstreams });
  const strategy = serviceAccountStrategy({ serviceAccounts, rateLimits: createMemoryRateLimitStore(), upstreams, log, metrics });
  const identify = async (authorization = `Bearer ${key}`) => {
    const verdict = await strategy.identify(new Request('http://gateway.test/graphql', { method: 'POST', headers: { authorization } }));
    if (!verdict) throw new Error('not an API key request');
    return verdict;
  };
  const identity = async () => {
    const verdict = await identify();
    if (!('identity' in verdict) || !(verdict.identity instanceof ServiceAccountIdentity)) throw new Error(`no identity: ${JSON.stringify(verdict)}`);
    return verdict.identity;
  };
  const presented = (headers: Record<string, string>) => strategy.presented(new Request('http://gateway.test/graphql', { method: 'POST', headers }));
  return { account, key, captured, identify, identity, presented };
}

/** How many times the upstream was asked to sign in, since the last call. */
async function signIns(): Promise<number> {
  const requests = await control<{ path: string }[]>(upstream.url, 'GET', '/__emulator/requests');
  await control(upstream.url, 'DELETE', '/__emulator/requests');
  return requests.body.filter((request) => request.path === '/v2/auth/sign_in').length;
}

const unauthorized = () => new Response('{"errors":["Invalid login credentials"]}', { status: 401, headers: { 'content-type': 'application/json' } });

describe('ServiceAccountIdentity', () => {
  it('acts as the account\'s upstream user with the credential of one sign-in, shared by its requests', async () => {
    const { account, identity } = await accountWithKey();
    const first = await identity();
    expect([first.uid, first.upstream.environment, first.key, first.rateLimitKey]).toEqual([account.email, 'sandbox', `account:${account.name}`, undefined]);
    expect(first.description).toEqual({ actor: 'service-account', account: account.name, environment: 'sandbox' });
    expect((await identity()).credential()).toEqual(first.credential());
    expect(await signIns()).toBe(1);
  });

  it('renews its credential once on a 401 (one new sign-in), then refuses with UNAUTHENTICATED', async () => {
    const { identity, captured } = await accountWithKey();
    const current = await identity();
    const refused = current.credential();
    await signIns();
    await current.refused(unauthorized());
    expect(current.credential().accessToken).not.toBe(refused.accessToken);
    expect(await signIns()).toBe(1);
    const again = current.refused(unauthorized());
    await expect(again).rejects.toBeInstanceOf(GatewayError);
    await expect(again).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message: 'The upstream refused the service account\'s credential.' });
    expect(await signIns()).toBe(0);
    expect(captured.events('service-account.signed-in').map((line) => line.reason)).toEqual(['missing', 'refused']);
  });

  it('lets the account\'s next request use the renewed credential, and renew once for itself', async () => {
    const { identity } = await accountWithKey();
    const first = await identity();
    await first.refused(unauthorized());
    const next = await identity();
    expect(next.credential()).toEqual(first.credential());
    await signIns();
    await next.refused(unauthorized());
    expect(await signIns()).toBe(1);
  });

  it('keeps a rotated token for the account; a blank (batch-window) token changes nothing', async () => {
    const { identity, captured } = await accountWithKey();
    const current = await identity();
    const { client, uid } = current.credential();
    await current.answered(new Response('{}', { headers: { 'access-token': ' ', client, uid } }));
    expect(captured.events('credential.rotated')).toEqual([]);
    await current.answered(new Response('{}', { headers: { 'access-token': 'rotated-token', client, uid } }));
    expect(current.credential().accessToken).toBe('rotated-token');
    expect((await identity()).credential().accessToken).toBe('rotated-token');
    expect(captured.events('credential.rotated')).toEqual([expect.objectContaining({ kept: true })]);
  });

  it('refuses an unknown key, and the account\'s requests over its requestsPerMinute with RATE_LIMITED', async () => {
    const { identify } = await accountWithKey({ requestsPerMinute: 2 });
    expect(await identify('Bearer sgw_unknown-key-0123456789')).toMatchObject({ refusal: { extensions: { code: 'UNAUTHENTICATED' } } });
    expect(await identify()).toHaveProperty('identity');
    expect(await identify()).toHaveProperty('identity');
    expect(await identify()).toMatchObject({ refusal: { extensions: { code: 'RATE_LIMITED', http: { headers: { 'retry-after': expect.any(String) as string } } } } });
  });

  it('says from the header alone, signing nobody in, that its requests may send query texts (TRUSTED_DOCUMENTS_ONLY), refusing an unknown key there', async () => {
    const { key, captured, presented } = await accountWithKey();
    await signIns();
    expect(presented({ authorization: `Bearer ${key}` })).toEqual({ queryTexts: true });
    expect(await signIns()).toBe(0);
    const unknown = presented({ authorization: 'Bearer sgw_unknown-key-0123456789' });
    expect(unknown).toMatchObject({ refusal: { message: 'Unknown API key.', extensions: { code: 'UNAUTHENTICATED' } } });
    expect(unknown && 'refusal' in unknown && unknown.refusal).toBeInstanceOf(GatewayError);
    expect(captured.events('service-account.key-rejected')).toHaveLength(1);
    expect(presented({})).toBeUndefined();
    expect(presented({ authorization: 'Basic b3BzOnRva2Vu' })).toBeUndefined();
  });
});
