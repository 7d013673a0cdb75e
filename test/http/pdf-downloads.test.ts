/**
 * `GET /statements/{otxId}/pdf`: a statement's PDF for a plain link, through the gateway's own
 * GraphQL pipeline (identity, access re-checked upstream, the PDF cache), against the emulator.
 */
import { describe, expect, it } from 'vitest';
import { countOperation, signedInUser, takeUpstreamRequests } from '../support/cache';
import { control, seed } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';

const account = testServiceAccount('pdf-downloads');
const limited = testServiceAccount('pdf-downloads-limited', { requestsPerMinute: 1 });
const embedded = testServiceAccount('pdf-downloads-embedded', { requestsPerMinute: 1 });
const APP = 'https://app.example.com';
const { sandbox, gateway } = useGatewayOnEmulators({ ...serviceAccountsEnv([account, limited, embedded]), ALLOWED_ORIGINS: APP });
/** Sec-Fetch-Dest values of requests that cannot show a document: an <img>, a <script>, a worker ... */
const SUBRESOURCES = ['image', 'script', 'style', 'font', 'audio', 'video', 'track', 'worker', 'sharedworker', 'serviceworker', 'manifest', 'report', 'xslt', 'audioworklet', 'paintworklet', 'json'];
const SESSION_LEFT = '{ session(touch: false) { idleExpiresInSeconds } }';

function download(otxId: string, headers: Record<string, string> = {}, query = ''): Promise<Response> {
  return fetch(`${gateway.current.url}/statements/${encodeURIComponent(otxId)}/pdf${query}`, { headers });
}

async function expectPdf(response: Response): Promise<void> {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/pdf');
  expect(Buffer.from(await response.arrayBuffer()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
}

describe('GET /statements/{otxId}/pdf', () => {
  it("answers a signed-in browser's link with the PDF, as an attachment named after the form and the uploaderId", async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { form: 'Fw2', count: 1 });
    const [statement] = user.statements;
    const response = await download(statement!.otxId, { cookie: user.browser.cookie! });
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="fw2-${statement!.uploaderId}.pdf"`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    await expectPdf(response);
  });

  it('answers ?inline=1 with the same PDF to open in the browser', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { form: 'Fw2', count: 1 });
    const [statement] = user.statements;
    const response = await download(statement!.otxId, { cookie: user.browser.cookie! }, '?inline=1');
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="fw2-${statement!.uploaderId}.pdf"`);
    await expectPdf(response);
  });

  it("answers another user's otxId with the same 404 as an otxId that does not exist", async () => {
    const owner = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const other = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    const foreign = await download(owner.statements[0]!.otxId, { cookie: other.browser.cookie! });
    const unknown = await download('f1099nec-does-not-exist', { cookie: other.browser.cookie! });
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    const [foreignBody, unknownBody] = [await foreign.text(), await unknown.text()];
    expect(foreignBody).toBe(unknownBody);
    expect(JSON.parse(foreignBody)).toMatchObject({ errors: [{ extensions: { code: 'NOT_FOUND' } }] });
    expect(foreign.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
  });

  it('answers a link without a cookie or an API key with 401 UNAUTHENTICATED', async () => {
    const owner = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const response = await download(owner.statements[0]!.otxId);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
  });

  it('answers an id that cannot exist (too long, broken percent-encoding) as any unknown id, after checking who asks', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    const unknown = await (await download('f1099nec-does-not-exist', { cookie: user.browser.cookie! })).text();
    for (const path of [`/statements/${'x'.repeat(300)}/pdf`, '/statements/%E0%A4%A/pdf']) {
      const signedIn = await fetch(`${gateway.current.url}${path}`, { headers: { cookie: user.browser.cookie! } });
      expect([signedIn.status, await signedIn.text()], path).toEqual([404, unknown]);
      expect((await fetch(`${gateway.current.url}${path}`)).status, path).toBe(401);
    }
  });

  it('refuses a request whose Origin is foreign with 403 CSRF_CHECK_FAILED, before the upstream hears of it', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    await takeUpstreamRequests(sandbox.url);
    const response = await download(user.statements[0]!.otxId, { cookie: user.browser.cookie!, origin: 'https://evil.example' });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { errors: { message: string; extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).toBe('CSRF_CHECK_FAILED');
    expect(body.errors[0]?.message).toContain('"https://evil.example"');
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
  });

  it("serves a service account's download by its Bearer key", async () => {
    const created = await control(sandbox.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password });
    expect(created.status).toBe(201);
    const [statement] = await seed(sandbox.url, account.email, 'F1099nec', 1, 'svc-');
    const response = await download(statement!.otxId, { authorization: `Bearer ${account.key}` });
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="f1099nec-${statement!.uploaderId}.pdf"`);
    await expectPdf(response);
  });

  it('serves the bytes from the PDF cache while asking the upstream for the statement each time', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    const otxId = user.statements[0]!.otxId;
    await takeUpstreamRequests(sandbox.url);
    const cold = await (await download(otxId, { cookie: user.browser.cookie! })).arrayBuffer();
    expect(countOperation(await takeUpstreamRequests(sandbox.url), 'getStatements')).toBe(2);
    const warm = await (await download(otxId, { cookie: user.browser.cookie! })).arrayBuffer();
    expect(Buffer.from(warm).equals(Buffer.from(cold))).toBe(true);
    expect((await takeUpstreamRequests(sandbox.url)).map((request) => request.operations)).toEqual([['getStatements']]);
  });

  it('writes one access-log line per download, with the read\'s root fields and user (the read through the pipeline writes none of its own)', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { form: 'Fw2', count: 1 });
    const otxId = user.statements[0]!.otxId;
    const before = gateway.current.output().length;
    await expectPdf(await download(otxId, { cookie: user.browser.cookie! }));
    expect((await download('fw2-does-not-exist', { cookie: user.browser.cookie! })).status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const completed = gateway.current
      .output()
      .slice(before)
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event?: string; method?: string; path?: string; status?: number; operation?: string; uid?: string })
      .filter((line) => line.event === 'request.completed');
    expect(completed.map(({ method, path, status, uid }) => ({ method, path, status, uid }))).toEqual([
      { method: 'GET', path: `/statements/${otxId}/pdf`, status: 200, uid: user.email },
      { method: 'GET', path: '/statements/fw2-does-not-exist/pdf', status: 404, uid: user.email },
    ]);
    for (const line of completed) expect(line.operation).toBeTruthy();
  });

  it("accepts a link whose Origin is the gateway's own", async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    await expectPdf(await download(user.statements[0]!.otxId, { cookie: user.browser.cookie!, origin: gateway.current.url }));
  });

  it("counts a download as the session's activity: the idle timeout starts again", async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const before = (await user.browser.graphql<{ session: { idleExpiresInSeconds: number } }>(SESSION_LEFT)).body.data!.session.idleExpiresInSeconds;
    await expectPdf(await download(user.statements[0]!.otxId, { cookie: user.browser.cookie! }));
    const after = (await user.browser.graphql<{ session: { idleExpiresInSeconds: number } }>(SESSION_LEFT)).body.data!.session.idleExpiresInSeconds;
    expect(after).toBeGreaterThanOrEqual(before + 2);
  });

  it("applies the identity's rate limit: past it, 429 RATE_LIMITED with Retry-After", async () => {
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: limited.email, password: limited.password })).status).toBe(201);
    const [statement] = await seed(sandbox.url, limited.email, 'F1099nec', 1, 'limited-');
    await expectPdf(await download(statement!.otxId, { authorization: `Bearer ${limited.key}` }));
    const refused = await download(statement!.otxId, { authorization: `Bearer ${limited.key}` });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ errors: [{ extensions: { code: 'RATE_LIMITED' } }] });
  });

  it('names the file by the otxId when the uploaderId has characters unsafe in a file name', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 0 });
    const [statement] = await seed(sandbox.url, user.email, 'Fw2', 1, 'a/b "c"-');
    const response = await download(statement!.otxId, { cookie: user.browser.cookie! });
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="fw2-${statement!.otxId}.pdf"`);
    await expectPdf(response);
  });

  it('refuses an <img>, a <script> and every subresource that cannot show a document with 403 CSRF_CHECK_FAILED, before the upstream or a limit hears of it (regression)', async () => {
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: embedded.email, password: embedded.password })).status).toBe(201);
    const [statement] = await seed(sandbox.url, embedded.email, 'F1099nec', 1, 'embedded-');
    await takeUpstreamRequests(sandbox.url);
    for (const destination of SUBRESOURCES) {
      const refused = await download(statement!.otxId, { authorization: `Bearer ${embedded.key}`, 'sec-fetch-dest': destination });
      expect([refused.status, refused.headers.get('content-type')], destination).toEqual([403, expect.stringContaining('application/json')]);
      const body = (await refused.json()) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code, destination).toBe('CSRF_CHECK_FAILED');
      expect(body.errors[0]?.message, destination).toContain(`Sec-Fetch-Dest: ${destination}`);
    }
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
    // The account's limit of one request a minute is still whole.
    await expectPdf(await download(statement!.otxId, { authorization: `Bearer ${embedded.key}`, 'sec-fetch-dest': 'document' }));
  });

  it("does not count an <img>'s request as the session's activity: the idle timeout goes on (regression)", async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const before = (await user.browser.graphql<{ session: { idleExpiresInSeconds: number } }>(SESSION_LEFT)).body.data!.session.idleExpiresInSeconds;
    expect((await download(user.statements[0]!.otxId, { cookie: user.browser.cookie!, 'sec-fetch-dest': 'image' })).status).toBe(403);
    const after = (await user.browser.graphql<{ session: { idleExpiresInSeconds: number } }>(SESSION_LEFT)).body.data!.session.idleExpiresInSeconds;
    expect(after).toBeLessThanOrEqual(before);
  });

  it('serves a page, a frame, an embed, an object, a fetch or download (empty) and a request without Sec-Fetch-Dest', async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    for (const destination of ['document', 'iframe', 'frame', 'embed', 'object', 'empty', undefined]) {
      const headers: Record<string, string> = { cookie: user.browser.cookie!, ...(destination ? { 'sec-fetch-dest': destination } : {}) };
      await expectPdf(await download(user.statements[0]!.otxId, headers, '?inline=1'));
    }
  });

  it("sandboxes the PDF and lets only the gateway's own pages and ALLOWED_ORIGINS frame it", async () => {
    const user = await signedInUser(gateway.current.url, sandbox.url, { count: 1 });
    for (const query of ['?inline=1', '']) {
      const response = await download(user.statements[0]!.otxId, { cookie: user.browser.cookie! }, query);
      expect(response.headers.get('content-security-policy'), query).toBe(`sandbox; frame-ancestors 'self' ${APP}`);
      await expectPdf(response);
    }
  });
});
