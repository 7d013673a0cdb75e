import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  DEMO_ACCOUNT, control, credentialFrom, graphql, movableClock, signIn, signInRaw, useEmulator, type Credential,
} from '../support/emulator';

// Token expiry and devise's 5-second batch window run on this clock: the tests move it past them.
const clock = movableClock();
const ctx = useEmulator('sandbox', { now: clock.now });
const GREETING = '{ secretGreeting { response errors } }';

function schemaOf(name: string): object {
  return JSON.parse(readFileSync(join(__dirname, '..', '..', 'sources', 'sign-in', name), 'utf8')) as object;
}

describe('emulator sign-in (devise_token_auth)', () => {
  it('answers 200 with access-token, client, uid, token-type, expiry headers and a data body', async () => {
    const res = await signInRaw(ctx.url, DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-token')).toMatch(/^\S{16,}$/);
    expect(res.headers.get('client')).toMatch(/^\S{16,}$/);
    expect(res.headers.get('uid')).toBe(DEMO_ACCOUNT.email);
    expect(res.headers.get('token-type')).toBe('Bearer');
    expect(Number(res.headers.get('expiry'))).toBeGreaterThan(Date.now() / 1000 + 13 * 24 * 3600);
    expect(res.body).toMatchObject({ data: { email: DEMO_ACCOUNT.email, uid: DEMO_ACCOUNT.email, provider: 'email' } });
  });

  it('gives every sign-in a new client, so one account holds several credentials', async () => {
    const a = await signIn(ctx.url);
    const b = await signIn(ctx.url);
    expect(a.client).not.toBe(b.client);
    expect((await graphql(ctx.url, a, GREETING)).status).toBe(200);
    expect((await graphql(ctx.url, b, GREETING)).status).toBe(200);
  });

  it('answers a wrong password with 401, an errors list and no credential headers', async () => {
    const res = await signInRaw(ctx.url, DEMO_ACCOUNT.email, 'not-the-password');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, errors: ['Invalid login credentials. Please try again.'] });
    for (const h of ['access-token', 'client', 'uid', 'expiry', 'authorization']) expect(res.headers.get(h)).toBeNull();
  });

  it('answers an unknown e-mail exactly as a wrong password', async () => {
    const unknown = await signInRaw(ctx.url, 'nobody@example.com', 'whatever');
    const wrong = await signInRaw(ctx.url, DEMO_ACCOUNT.email, 'whatever');
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('refuses an unconfirmed account with 401 until confirmRegistration confirms it', async () => {
    const created = await control<{ confirmationToken: string }>(ctx.url, 'POST', '/__emulator/accounts', { email: 'new@example.com' });
    const before = await signInRaw(ctx.url, 'new@example.com', 'x'.repeat(24));
    expect(before.status).toBe(401);
    expect(JSON.stringify(before.body)).toContain('confirmation');
    const password = 'a-password-of-24-chars!!';
    const confirmed = await graphql(ctx.url, null, 'mutation($t: String!, $p: String!) { confirmRegistration(confirmationToken: $t, password: $p) { message errors } }', { t: created.body.confirmationToken, p: password });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data?.confirmRegistration).toEqual({
      message: 'Registration confirmation succeeded. You can log in and begin processing statements.', errors: [],
    });
    expect((await signInRaw(ctx.url, 'new@example.com', password)).status).toBe(200);
  });

  it('refuses confirmRegistration with an unknown token or a short password, in the errors list', async () => {
    const q = 'mutation($t: String!, $p: String!) { confirmRegistration(confirmationToken: $t, password: $p) { message errors } }';
    const unknown = await graphql(ctx.url, null, q, { t: 'nope', p: 'x'.repeat(24) });
    expect(unknown.body.data?.confirmRegistration).toEqual({ message: null, errors: ['Confirmation token is invalid'] });
    const short = await graphql(ctx.url, null, q, { t: 'nope', p: 'short' });
    expect(short.body.data?.confirmRegistration.errors[0]).toMatch(/too short/);
  });

  it('matches the JSON schemas of sources/sign-in for success and failure', async () => {
    const ajv = new Ajv({ strict: false });
    const ok = await signInRaw(ctx.url, DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    const bad = await signInRaw(ctx.url, DEMO_ACCOUNT.email, 'nope');
    expect(ajv.validate(schemaOf('response.json'), ok.body)).toBe(true);
    expect(ajv.validate(schemaOf('error.json'), bad.body)).toBe(true);
    expect(ajv.validate(schemaOf('request.json'), { email: 'a@b.c', password: 'p' })).toBe(true);
    const described = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'sources', 'sign-in', 'operation.json'), 'utf8')) as { credentialHeaders: object }).credentialHeaders;
    for (const header of Object.keys(described)) expect(ok.headers.get(header), header).not.toBeNull();
  });
});

describe('emulator credential headers on /v2/graphql', () => {
  it('answers a call without credential headers with 401 and a JSON errors list', async () => {
    const res = await graphql(ctx.url, null, GREETING);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({ errors: ['You need to sign in or sign up before continuing.'] });
  });

  it.each(['access-token', 'client', 'uid'] as const)('answers 401 when only the %s header is missing', async (missing) => {
    const credential = await signIn(ctx.url);
    const partial = Object.fromEntries(Object.entries(credential).filter(([k]) => k !== missing)) as unknown as Credential;
    expect((await graphql(ctx.url, partial, GREETING)).status).toBe(401);
  });

  it('accepts the credential as Authorization: Bearer with the base-64 JSON devise_token_auth issues', async () => {
    const res = await signInRaw(ctx.url, DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    const answer = await fetch(`${ctx.url}/v2/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: res.headers.get('authorization') ?? '' },
      body: JSON.stringify({ query: GREETING }),
    });
    expect(answer.status).toBe(200);
  });

  it('answers 401 to a forged access-token', async () => {
    const credential = await signIn(ctx.url);
    expect((await graphql(ctx.url, { ...credential, 'access-token': 'forged-token-000000' }, GREETING)).status).toBe(401);
  });

  it('runs confirmRegistration without credential headers', async () => {
    const res = await graphql(ctx.url, null, 'mutation { confirmRegistration(confirmationToken: "x", password: "y") { message errors } }');
    expect(res.status).toBe(200);
  });

  it('refuses a document that mixes confirmRegistration with a protected operation', async () => {
    const res = await graphql(ctx.url, null, 'mutation { confirmRegistration(confirmationToken: "x", password: "y") { message } deleteStatements(uploaderIds: ["1"]) { deleteCount } }');
    expect(res.status).toBe(401);
  });

  it('answers introspection without a credential', async () => {
    const res = await graphql(ctx.url, null, '{ __schema { queryType { name } mutationType { name } } }');
    expect(res.status).toBe(200);
    expect(res.body.data?.__schema).toEqual({ queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } });
  });

  it('stops accepting a credential once tokenTtlSeconds has passed', async () => {
    // A minute, not a second: the clock also runs with real time, and expiry is in whole seconds,
    // so a 1 s token could end before a loaded machine's first request (a CI run saw it).
    await control(ctx.url, 'PATCH', '/__emulator/settings', { tokenTtlSeconds: 60 });
    const credential = await signIn(ctx.url);
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(200);
    clock.advance(61_100);
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(401);
  });
});

describe('emulator sign-out', () => {
  it('ends a credential sent as headers; a second sign-out answers 404', async () => {
    const credential = await signIn(ctx.url);
    const out = await fetch(`${ctx.url}/v2/auth/sign_out`, { method: 'DELETE', headers: { ...credential } });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ success: true });
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(401);
    const again = await fetch(`${ctx.url}/v2/auth/sign_out`, { method: 'DELETE', headers: { ...credential } });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ success: false, errors: ['User was not found or was not logged in.'] });
  });

  it('matches the JSON schemas of sources/sign-in for a sign-out and an unknown credential\'s', async () => {
    const ajv = new Ajv({ strict: false });
    const credential = await signIn(ctx.url);
    const out = await fetch(`${ctx.url}/v2/auth/sign_out`, { method: 'DELETE', headers: { ...credential } });
    const again = await fetch(`${ctx.url}/v2/auth/sign_out`, { method: 'DELETE', headers: { ...credential } });
    expect(ajv.validate(schemaOf('sign-out.json'), await out.json())).toBe(true);
    expect(ajv.validate(schemaOf('sign-out-error.json'), await again.json())).toBe(true);
    expect(ajv.validate(schemaOf('sign-out.json'), { success: false })).toBe(false);
  });

  it('accepts the credential in the JSON body, as the upstream JavaScript tutorial sends it', async () => {
    const credential = await signIn(ctx.url);
    const out = await fetch(`${ctx.url}/v2/auth/sign_out`, {
      method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credential),
    });
    expect(out.status).toBe(200);
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(401);
  });

  it('ends only the signed-out client, not the account\'s other credentials', async () => {
    const a = await signIn(ctx.url);
    const b = await signIn(ctx.url);
    await fetch(`${ctx.url}/v2/auth/sign_out`, { method: 'DELETE', headers: { ...a } });
    expect((await graphql(ctx.url, b, GREETING)).status).toBe(200);
  });
});

describe('emulator token rotation (rotateTokens)', () => {
  const rotateOn = () => control(ctx.url, 'PATCH', '/__emulator/settings', { rotateTokens: true });
  const rotatedToken = async (credential: Credential) => credentialFrom((await graphql(ctx.url, credential, GREETING)).headers)['access-token'];

  it('echoes the presented credential in the answer headers when rotation is off (the default)', async () => {
    const credential = await signIn(ctx.url);
    const res = await graphql(ctx.url, credential, GREETING);
    expect(res.status).toBe(200);
    expect(credentialFrom(res.headers)).toEqual(credential);
    expect(res.headers.get('authorization')).toMatch(/^Bearer /);
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(200);
  });

  it('sends a new access-token on an authenticated answer when rotation is on', async () => {
    await rotateOn();
    const credential = await signIn(ctx.url);
    const res = await graphql(ctx.url, credential, GREETING);
    const rotated = credentialFrom(res.headers);
    expect(rotated['access-token']).not.toBe(credential['access-token']);
    expect(rotated.client).toBe(credential.client);
    expect((await graphql(ctx.url, rotated, GREETING)).status).toBe(200);
  });

  it('keeps accepting the replaced token until the next rotation, as devise 1.2\'s previous_token', async () => {
    await rotateOn();
    const t0 = await signIn(ctx.url);
    await rotatedToken(t0);
    clock.advance(5100);
    const res = await graphql(ctx.url, t0, GREETING);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-token')).not.toBe(t0['access-token']);
  });

  it('answers a blank access-token to batch requests, inside 5 seconds of a rotation that left a last token', async () => {
    await rotateOn();
    const t0 = await signIn(ctx.url);
    const t1 = { ...t0, 'access-token': await rotatedToken(t0) };
    const t2 = { ...t0, 'access-token': await rotatedToken(t1) };
    const racing = await Promise.all([t0, t1, t2].map((c) => graphql(ctx.url, c, GREETING)));
    for (const res of racing) {
      expect(res.status).toBe(200);
      expect(res.headers.get('access-token')).toBe('');
      expect(res.headers.get('client')).toBe(t0.client);
    }
  });

  it('refuses a token two rotations old once the batch window has passed', async () => {
    await rotateOn();
    const t0 = await signIn(ctx.url);
    const t1 = { ...t0, 'access-token': await rotatedToken(t0) };
    await rotatedToken(t1);
    clock.advance(5100);
    expect((await graphql(ctx.url, t0, GREETING)).status).toBe(401);
    expect((await graphql(ctx.url, t1, GREETING)).status).toBe(200);
  });
});

describe('emulator request hygiene', () => {
  it('answers malformed JSON with 400 and a JSON error', async () => {
    for (const path of ['/v2/graphql', '/v2/auth/sign_in']) {
      const res = await fetch(`${ctx.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": ' });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ errors: [expect.any(String)] });
    }
  });

  it('answers an invalid GraphQL document with standard GraphQL errors', async () => {
    const credential = await signIn(ctx.url);
    const syntax = await graphql(ctx.url, credential, '{ secretGreeting { response ');
    expect(syntax.status).toBe(200);
    expect(syntax.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('Syntax Error'), locations: expect.any(Array) });
    const unknown = await graphql(ctx.url, credential, '{ secretGreeting { nope } }');
    expect(unknown.body.errors?.[0]).toMatchObject({ message: expect.stringContaining('Cannot query field "nope"') });
  });

  it('answers a body without a query as a Rails GraphQL controller does', async () => {
    const credential = await signIn(ctx.url);
    const res = await fetch(`${ctx.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: '{}' });
    expect(await res.json()).toEqual({ errors: [{ message: 'No query string was present' }] });
  });

  it('answers a document nested 3,000 levels deep with a GraphQL error, not a 500', async () => {
    const credential = await signIn(ctx.url);
    const res = await graphql(ctx.url, credential, `{ secretGreeting ${'{ a '.repeat(3000)}${'}'.repeat(3000)} }`);
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0]).toMatchObject({ message: expect.any(String) });
  });

  it('answers unknown paths with a JSON 404', async () => {
    const res = await fetch(`${ctx.url}/v3/graphql`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ status: 404, error: 'Not Found' });
  });

  it('answers GET /v2/graphql with the same JSON 404, as Rails answers a route drawn for POST only, without a credential', async () => {
    const res = await fetch(`${ctx.url}/v2/graphql`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ status: 404, error: 'Not Found' });
  });
});
