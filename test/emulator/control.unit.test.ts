import { describe, expect, it } from 'vitest';
import { FORMS } from '../../sources/statement-filing-service/catalogue';
import { DEMO_ACCOUNT, control, graphql, signIn, signInRaw, useEmulator } from '../support/emulator';

const ctx = useEmulator('sandbox');
const GREETING = '{ secretGreeting { response } }';

describe('emulator control API', () => {
  it('has the demo account at start', async () => {
    expect((await signInRaw(ctx.url, DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).status).toBe(200);
    expect(DEMO_ACCOUNT).toEqual({ email: 'demo@example.com', password: 'demo-password-0123456789' });
  });

  it('creates a confirmed account with POST /__emulator/accounts and a password', async () => {
    const res = await control(ctx.url, 'POST', '/__emulator/accounts', { email: 'Ann@Example.com', password: 'ann-password-0123456789' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ email: 'ann@example.com' });
    expect((await signInRaw(ctx.url, 'ann@example.com', 'ann-password-0123456789')).status).toBe(200);
  });

  it('creates an unconfirmed account without a password and answers its confirmationToken', async () => {
    const res = await control<{ email: string; confirmationToken: string }>(ctx.url, 'POST', '/__emulator/accounts', { email: 'new@example.com' });
    expect(res.status).toBe(201);
    expect(res.body.confirmationToken).toMatch(/^\w{16,}$/);
  });

  it('refuses a second account with the same e-mail, and a malformed body', async () => {
    expect((await control(ctx.url, 'POST', '/__emulator/accounts', { email: DEMO_ACCOUNT.email, password: 'x' })).status).toBe(409);
    expect((await control(ctx.url, 'POST', '/__emulator/accounts', { email: 'not-an-email' })).status).toBe(400);
  });

  it('stores valid statements of every form with POST /__emulator/statements', async () => {
    const credential = await signIn(ctx.url);
    for (const form of FORMS) {
      const res = await control<{ otxId: string; uploaderId: string }[]>(ctx.url, 'POST', '/__emulator/statements', { email: DEMO_ACCOUNT.email, form: form.key, count: 2 });
      expect(res.status, form.key).toBe(201);
      expect(res.body).toHaveLength(2);
      const nodes = (await graphql(ctx.url, credential, `query($o: [String!]) { ${form.operations.get}(otxIds: $o) { statements { nodes { otxId statementValid validationMessages } } } }`, { o: res.body.map((s) => s.otxId) }))
        .body.data?.[form.operations.get].statements.nodes;
      expect(nodes, form.key).toEqual(res.body.map((s) => ({ otxId: s.otxId, statementValid: true, validationMessages: [] })));
    }
  });

  it('names generated statements with uploaderIdPrefix and refuses taken uploaderIds', async () => {
    const res = await control(ctx.url, 'POST', '/__emulator/statements', { email: DEMO_ACCOUNT.email, form: 'Fw2', count: 3, uploaderIdPrefix: 'emp-' });
    expect((res.body as { uploaderId: string }[]).map((s) => s.uploaderId)).toEqual(['emp-1', 'emp-2', 'emp-3']);
    const again = await control(ctx.url, 'POST', '/__emulator/statements', { email: DEMO_ACCOUNT.email, form: 'Fw2', count: 1, uploaderIdPrefix: 'emp-' });
    expect(again.status).toBe(409);
  });

  it('numbers generated statements after deletes without colliding', async () => {
    const credential = await signIn(ctx.url);
    await control(ctx.url, 'POST', '/__emulator/statements', { email: DEMO_ACCOUNT.email, form: 'Fw2', count: 3 });
    const others = await control<{ uploaderId: string }[]>(ctx.url, 'POST', '/__emulator/statements', { email: DEMO_ACCOUNT.email, form: 'F1099nec', count: 3 });
    await graphql(ctx.url, credential, 'mutation($u: [String!]) { deleteStatements(uploaderIds: $u) { deleteCount } }', { u: others.body.map((s) => s.uploaderId) });
    const again = await control<{ uploaderId: string }[]>(ctx.url, 'POST', '/__emulator/statements', { email: DEMO_ACCOUNT.email, form: 'Fw2', count: 2 });
    expect(again.status).toBe(201);
    expect(new Set(again.body.map((s) => s.uploaderId)).size).toBe(2);
  });

  it('refuses an unknown form or account', async () => {
    expect((await control(ctx.url, 'POST', '/__emulator/statements', { email: DEMO_ACCOUNT.email, form: 'F9999', count: 1 })).status).toBe(400);
    expect((await control(ctx.url, 'POST', '/__emulator/statements', { email: 'nobody@example.com', form: 'Fw2', count: 1 })).status).toBe(404);
  });

  it('delays every non-control answer by latencyMs', async () => {
    const credential = await signIn(ctx.url);
    const patched = await control(ctx.url, 'PATCH', '/__emulator/settings', { latencyMs: 300 });
    expect(patched.body).toMatchObject({ latencyMs: 300 });
    const started = performance.now();
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    const controlStarted = performance.now();
    await control(ctx.url, 'GET', '/__emulator/settings');
    expect(performance.now() - controlStarted).toBeLessThan(290);
  });

  it('answers every non-control request with failStatus until it is set back to null', async () => {
    const credential = await signIn(ctx.url);
    await control(ctx.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    const failed = await graphql(ctx.url, credential, GREETING);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('content-type')).toContain('text/html');
    expect((await signInRaw(ctx.url, DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).status).toBe(503);
    expect((await control(ctx.url, 'GET', '/__emulator/requests')).status).toBe(200);
    await control(ctx.url, 'PATCH', '/__emulator/settings', { failStatus: null });
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(200);
  });

  it('answers the next failNextCount requests with 503 by default, logs them, then serves normally', async () => {
    const credential = await signIn(ctx.url);
    await control(ctx.url, 'DELETE', '/__emulator/requests');
    await control(ctx.url, 'PATCH', '/__emulator/settings', { failNextCount: 2 });
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(503);
    expect((await signInRaw(ctx.url, DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).status).toBe(503);
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(200);
    expect((await control(ctx.url, 'GET', '/__emulator/requests')).body).toEqual([
      { path: '/v2/graphql', operations: ['secretGreeting'], uid: DEMO_ACCOUNT.email, status: 503, traceparent: null, fault: 'failNext' },
      { path: '/v2/auth/sign_in', operations: [], uid: null, status: 503, traceparent: null, fault: 'failNext' },
      { path: '/v2/graphql', operations: ['secretGreeting'], uid: DEMO_ACCOUNT.email, status: 200, traceparent: null },
    ]);
    expect((await control(ctx.url, 'GET', '/__emulator/settings')).body).toMatchObject({ failNextCount: 0 });
  });

  it('answers the next failNextCount requests with failNextStatus when it is set', async () => {
    const credential = await signIn(ctx.url);
    await control(ctx.url, 'PATCH', '/__emulator/settings', { failNextCount: 1, failNextStatus: 502 });
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(502);
    expect((await graphql(ctx.url, credential, GREETING)).status).toBe(200);
  });

  it('carries out the next dropNextResponses GraphQL requests, closes their connections unanswered and logs them', async () => {
    const credential = await signIn(ctx.url);
    await control(ctx.url, 'DELETE', '/__emulator/requests');
    await control(ctx.url, 'PATCH', '/__emulator/settings', { dropNextResponses: 1 });
    const add = 'mutation { addFw2Statements(statements: [{ uploaderId: "dropped" }]) { errors } }';
    await expect(graphql(ctx.url, credential, add)).rejects.toThrow();
    const read = await graphql(ctx.url, credential, '{ getFw2Statements { statements { nodes { uploaderId } } } }');
    expect(read.body.data?.getFw2Statements.statements.nodes).toEqual([{ uploaderId: 'dropped' }]);
    expect((await control(ctx.url, 'GET', '/__emulator/requests')).body).toEqual([
      { path: '/v2/graphql', operations: ['addFw2Statements'], uid: DEMO_ACCOUNT.email, status: 200, traceparent: null, fault: 'dropped' },
      { path: '/v2/graphql', operations: ['getFw2Statements'], uid: DEMO_ACCOUNT.email, status: 200, traceparent: null },
    ]);
  });

  it('holds answers for hangMs, so that a client times out, and drops the abandoned request', async () => {
    const credential = await signIn(ctx.url);
    await control(ctx.url, 'PATCH', '/__emulator/settings', { hangMs: 1_000 });
    const add = 'mutation { addFw2Statements(statements: [{ uploaderId: "hung" }]) { errors } }';
    await expect(fetch(`${ctx.url}/v2/graphql`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: JSON.stringify({ query: add }), signal: AbortSignal.timeout(300),
    })).rejects.toThrow();
    await control(ctx.url, 'PATCH', '/__emulator/settings', { hangMs: 0 });
    await new Promise((r) => setTimeout(r, 1_200)); // past the hang: a request that was not dropped would have run by now
    const read = await graphql(ctx.url, credential, '{ getFw2Statements { statements { nodes { uploaderId } } } }');
    expect(read.body.data?.getFw2Statements.statements.nodes).toEqual([]);
  });

  it('refuses unknown or malformed settings with 400 and keeps the current ones', async () => {
    expect((await control(ctx.url, 'PATCH', '/__emulator/settings', { latencyMs: -1 })).status).toBe(400);
    expect((await control(ctx.url, 'PATCH', '/__emulator/settings', { speed: 'fast' })).status).toBe(400);
    expect((await control(ctx.url, 'PATCH', '/__emulator/settings', { rotateTokens: 'yes' })).status).toBe(400);
    for (const failStatus of [103, 204, 304]) {
      expect((await control(ctx.url, 'PATCH', '/__emulator/settings', { failStatus })).status, String(failStatus)).toBe(400);
    }
    expect((await control(ctx.url, 'GET', '/__emulator/settings')).body).toEqual({
      latencyMs: 0, failStatus: null, hangMs: 0, tokenTtlSeconds: 1_209_600, rotateTokens: false,
      failNextCount: 0, failNextStatus: 503, dropNextResponses: 0, schemaChanges: null,
    });
  });

  it('logs each request with path, operations, uid and status, newest last, and never a token', async () => {
    const credential = await signIn(ctx.url);
    await graphql(ctx.url, credential, '{ secretGreeting { response } statementDefinitions { errors } }');
    await graphql(ctx.url, null, GREETING);
    const log = await control<unknown[]>(ctx.url, 'GET', '/__emulator/requests');
    expect(log.body).toEqual([
      { path: '/v2/auth/sign_in', operations: [], uid: DEMO_ACCOUNT.email, status: 200, traceparent: null },
      { path: '/v2/graphql', operations: ['secretGreeting', 'statementDefinitions'], uid: DEMO_ACCOUNT.email, status: 200, traceparent: null },
      { path: '/v2/graphql', operations: ['secretGreeting'], uid: null, status: 401, traceparent: null },
    ]);
    const text = JSON.stringify(log.body);
    expect(text).not.toContain(credential['access-token']);
    expect(text).not.toContain(credential.client);
  });

  it('logs the traceparent each request came with', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await fetch(`${ctx.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', traceparent }, body: JSON.stringify({ query: GREETING }) });
    const log = await control<{ traceparent: string | null }[]>(ctx.url, 'GET', '/__emulator/requests');
    expect(log.body.map((entry) => entry.traceparent)).toEqual([traceparent]);
  });

  it('clears the request log with DELETE /__emulator/requests', async () => {
    await signIn(ctx.url);
    expect((await control(ctx.url, 'DELETE', '/__emulator/requests')).status).toBe(204);
    expect((await control(ctx.url, 'GET', '/__emulator/requests')).body).toEqual([]);
  });

  it('forgets everything but the demo account with POST /__emulator/reset', async () => {
    await control(ctx.url, 'POST', '/__emulator/accounts', { email: 'temp@example.com', password: 'temp-password-0123456789' });
    const before = await signIn(ctx.url);
    await control(ctx.url, 'POST', '/__emulator/statements', { email: DEMO_ACCOUNT.email, form: 'Fw2', count: 2 });
    await control(ctx.url, 'PATCH', '/__emulator/settings', { latencyMs: 5 });
    expect((await control(ctx.url, 'POST', '/__emulator/reset')).status).toBe(204);
    expect((await signInRaw(ctx.url, 'temp@example.com', 'temp-password-0123456789')).status).toBe(401);
    expect((await graphql(ctx.url, before, GREETING)).status).toBe(401);
    const after = await signIn(ctx.url);
    expect((await graphql(ctx.url, after, '{ getStatements { statements { nodes { otxId } } } }')).body.data?.getStatements.statements.nodes).toEqual([]);
    expect((await control(ctx.url, 'GET', '/__emulator/settings')).body).toMatchObject({ latencyMs: 0 });
  });
});
