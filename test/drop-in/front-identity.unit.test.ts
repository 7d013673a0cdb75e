/**
 * DropInIdentity on the upstream's answers, in process, with real `Response`s: the identity the
 * drop-in strategy makes of a front request whose credential the upstream accepted recently (the
 * front's state as useDropInFront leaves it), over the memory store of verified credentials. The
 * upstream's credential headers are recorded for the client (a blank batch-window token never
 * replaces a real one); only an authenticated answer verifies a credential again; a 401 is kept
 * to be passed on as the upstream's own answer.
 */
import { describe, expect, it } from 'vitest';
import type { UpstreamCredential } from '../../src/upstream/credential';
import { DropInIdentity, dropInStrategy } from '../../src/drop-in/front-identity';
import { DropInStates } from '../../src/drop-in/state';
import { createVerifiedCredentials } from '../../src/drop-in/verified-credentials';
import { GatewayError } from '../../src/errors';
import { specKeys, specUpstreams } from '../support/identities';

const PRESENTED: UpstreamCredential = { accessToken: 'presented-token', client: 'api-client', uid: 'api@example.com', expiry: 2_000_000_000 };
const namespace = specUpstreams.production.cacheNamespace;

/** Devise's credential headers for `credential`, as the upstream answers (a blank token inside its batch window). */
function answer(status: number, credential?: Partial<UpstreamCredential>, body = '{"data":{}}'): Response {
  const headers = new Headers({ 'content-type': 'application/json; charset=utf-8' });
  if (credential) {
    headers.set('access-token', credential.accessToken ?? '');
    headers.set('token-type', 'Bearer');
    if (credential.client) headers.set('client', credential.client);
    if (credential.expiry) headers.set('expiry', String(credential.expiry));
    if (credential.uid) headers.set('uid', credential.uid);
  }
  return new Response(body, { status, headers });
}

async function frontRequest() {
  let now = 1_900_000_000_000;
  const verified = createVerifiedCredentials(undefined, { keys: specKeys, clock: () => now });
  const request = new Request('http://gateway.test/production/v2/graphql', { method: 'POST' });
  const dropIn = new DropInStates();
  const state = dropIn.begin(request);
  state.verified = PRESENTED;
  const verdict = await dropInStrategy({ upstreams: specUpstreams, verified, keys: specKeys, clock: () => now, dropIn }).identify(request);
  if (!verdict || !('identity' in verdict) || !(verdict.identity instanceof DropInIdentity)) throw new Error('no drop-in identity');
  return { identity: verdict.identity, state, verified, advance: (ms: number) => (now += ms) };
}

describe('DropInIdentity', () => {
  it('acts as the presented credential on the path\'s upstream, never naming its token', async () => {
    const { identity, state } = await frontRequest();
    expect(identity.credential()).toEqual(PRESENTED);
    expect(identity.upstream).toBe(specUpstreams.production);
    expect(state.presented).toEqual(PRESENTED);
    expect(identity.description).toEqual({ actor: 'drop-in', uid: PRESENTED.uid, environment: 'production' });
    expect(`${identity.key} ${identity.rateLimitKey}`).not.toContain(PRESENTED.accessToken);
  });

  it('records the upstream\'s credential headers for the client, and verifies the credential for an authenticated answer', async () => {
    const { identity, state, verified } = await frontRequest();
    await identity.answered(answer(200, { ...PRESENTED, expiry: 2_000_000_050 }));
    expect(state.credentialHeaders).toEqual({ 'access-token': PRESENTED.accessToken, 'token-type': 'Bearer', client: PRESENTED.client, expiry: '2000000050', uid: PRESENTED.uid });
    expect((await verified.check(namespace, PRESENTED))?.expiry).toBe('2000000050');
  });

  it('never lets a blank (batch-window) token replace a real one another call of the request got', async () => {
    const { identity, state } = await frontRequest();
    await identity.answered(answer(200, PRESENTED));
    await identity.answered(answer(200, { ...PRESENTED, accessToken: ' ' }));
    expect(state.credentialHeaders?.['access-token']).toBe(PRESENTED.accessToken);
  });

  it('records a blank token when no real one came first (devise\'s own answer inside its batch window)', async () => {
    const { identity, state } = await frontRequest();
    await identity.answered(answer(200, { ...PRESENTED, accessToken: ' ' }));
    // Headers trim values: the blank token reads as ''.
    expect(state.credentialHeaders?.['access-token']).toBe('');
  });

  it('verifies nothing for an answer that did not authenticate the credential: no headers, another uid or client, an error status', async () => {
    for (const unauthenticated of [answer(200), answer(200, { ...PRESENTED, uid: 'other@example.com' }), answer(200, { ...PRESENTED, client: 'other' }), answer(500, PRESENTED)]) {
      const { identity, verified } = await frontRequest();
      await identity.answered(unauthenticated);
      expect(await verified.check(namespace, PRESENTED)).toBeUndefined();
    }
  });

  it('takes a rotated token for the request\'s next calls and verifies it in place of the presented one', async () => {
    const { identity, verified } = await frontRequest();
    const rotated = { ...PRESENTED, accessToken: 'rotated-token', expiry: 2_000_000_100 };
    await identity.answered(answer(200, rotated));
    expect(identity.credential()).toEqual(rotated);
    expect((await verified.check(namespace, rotated))?.expiry).toBe('2000000100');
    expect(await verified.check(namespace, PRESENTED)).toBeUndefined();
  });

  it('verifies nothing once the clock is past the credential\'s own expiry', async () => {
    const { identity, verified, advance } = await frontRequest();
    advance((PRESENTED.expiry ?? 0) * 1000 - 1_900_000_000_000);
    await identity.answered(answer(200, PRESENTED));
    expect(await verified.check(namespace, PRESENTED)).toBeUndefined();
  });

  it('keeps a 401 as the upstream\'s own answer for the client (body, content type, no-store) and refuses with UNAUTHENTICATED', async () => {
    const { identity, state, verified } = await frontRequest();
    const body = '{"errors":["Invalid login credentials"]}';
    const refusal = identity.refused(answer(401, undefined, body));
    await expect(refusal).rejects.toBeInstanceOf(GatewayError);
    await expect(refusal).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(state.refusal).toEqual({ status: 401, headers: { 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' }, body });
    expect(await verified.check(namespace, PRESENTED)).toBeUndefined();
  });
});
