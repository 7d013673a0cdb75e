/**
 * The audit trail: an `audit` line for every login (and failed login), logout, mutation, refusal
 * and rate-limited request, with who, from where, what and how it ended; and in the whole log of
 * those requests not one password, upstream token, client id, cookie or TIN.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT, signIn } from '../support/emulator';
import { Browser, useGatewayBehindRecordingProxy, type GraphqlAnswer } from '../support/gateway';
import { callWithKey, serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';
import { ADD_NEC, VALID_NEC } from '../support/statements';

const ACCOUNT = testServiceAccount('audit');
const setup = useGatewayBehindRecordingProxy({ RATE_LIMIT_SESSION: '6/1m', LOG_LEVEL: 'trace', ...serviceAccountsEnv([ACCOUNT]) });
const { sandbox, gateway } = setup;
const WRONG_PASSWORD = 'wrong-password-for-the-audit';

interface AuditLine {
  event: 'audit';
  action: string;
  outcome: string;
  status: number;
  path: string;
  actor: string;
  uid?: string;
  account?: string;
  environment?: string;
  session?: string;
  clientAddress: string;
  requestId: string;
  fields?: string[];
  statements?: number;
}

const secrets = new Set<string>([DEMO_ACCOUNT.password, WRONG_PASSWORD, VALID_NEC.recipientTin, VALID_NEC.senderTin, ACCOUNT.key, ACCOUNT.password]);

async function auditOf(answer: Pick<GraphqlAnswer<unknown>, 'headers'> | Response): Promise<AuditLine[]> {
  const id = answer.headers.get('x-request-id');
  await new Promise((resolve) => setTimeout(resolve, 100));
  return gateway.current
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as AuditLine)
    .filter((line) => line.event === 'audit' && line.requestId === id);
}

/** What the audit calls the session: 12 hex digits of the SHA-256 of its store key (never the cookie's id). */
function sessionHash(cookie: string | undefined): string {
  const id = (cookie ?? '').split('=')[1] ?? '';
  const digest = createHash('sha256').update(id).digest('base64url');
  // `<user>.<id>`: the user's keyed name is the key's hash tag (src/session/session-index.ts).
  const user = id.includes('.') ? id.slice(0, id.indexOf('.')) : undefined;
  const key = user === undefined ? `sgw:session:${digest}` : `sgw:session:{${user}}:${digest}`;
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}

/** Upstream tokens and client ids the recording proxy saw, and the cookie: none may be logged. */
function rememberSecrets(browser: Browser): void {
  for (const exchange of setup.proxy.exchanges) {
    for (const name of ['access-token', 'client', 'authorization']) {
      const value = exchange.responseHeaders[name]?.trim() ?? (exchange.requestHeaders[name] as string | undefined)?.trim();
      if (value) secrets.add(value);
    }
  }
  const cookieId = browser.cookie?.split('=')[1];
  if (cookieId) secrets.add(cookieId);
}

async function signedIn(): Promise<{ browser: Browser; login: GraphqlAnswer<unknown> }> {
  const browser = new Browser(gateway.current.url);
  const login = await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
  expect(login.codes).toEqual([]);
  rememberSecrets(browser);
  return { browser, login };
}

describe('the audit trail', () => {
  it('writes a login with the new session: uid, environment, session hash, client address, request id, fields, outcome', async () => {
    const { browser, login } = await signedIn();
    const [line, ...others] = await auditOf(login);
    expect(others).toEqual([]);
    expect(line).toMatchObject({ action: 'login', outcome: 'ok', status: 200, path: '/graphql', actor: 'session', uid: DEMO_ACCOUNT.email, environment: 'sandbox', fields: ['login'], statements: 0 });
    expect(line?.session).toBe(sessionHash(browser.cookie));
    expect(line?.clientAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it('writes a failed login with INVALID_CREDENTIALS and the e-mail tried', async () => {
    const answer = await new Browser(gateway.current.url).login(DEMO_ACCOUNT.email, WRONG_PASSWORD);
    expect(answer.codes).toEqual(['INVALID_CREDENTIALS']);
    expect(await auditOf(answer)).toEqual([expect.objectContaining({ action: 'login', outcome: 'INVALID_CREDENTIALS', status: 401, actor: 'anonymous', uid: DEMO_ACCOUNT.email, environment: 'sandbox' })]);
  });

  it('writes a mutation with the number of statements it names, and a logout as the session it ended', async () => {
    const { browser } = await signedIn();
    const statements = [1, 2, 3].map((index) => ({ ...VALID_NEC, uploaderId: `audit-${Date.now()}-${index}` }));
    const added = await browser.graphql(ADD_NEC, { s: statements });
    expect(added.codes).toEqual([]);
    rememberSecrets(browser);
    expect(await auditOf(added)).toEqual([expect.objectContaining({ action: 'mutation', outcome: 'ok', actor: 'session', uid: DEMO_ACCOUNT.email, session: sessionHash(browser.cookie), fields: ['addF1099necStatements'], statements: 3 })]);
    const deleted = await browser.graphql('mutation { deleteStatements(uploaderIds: ["a", "b"]) { errors } }');
    expect(await auditOf(deleted)).toEqual([expect.objectContaining({ action: 'mutation', fields: ['deleteStatements'], statements: 2 })]);
    const session = sessionHash(browser.cookie);
    const logout = await browser.graphql('mutation { logout }');
    expect(logout.codes).toEqual([]);
    expect(await auditOf(logout)).toEqual([expect.objectContaining({ action: 'logout', outcome: 'ok', actor: 'session', uid: DEMO_ACCOUNT.email, session })]);
  });

  it('writes refusals: no session, no X-CSRF, an unknown API key', async () => {
    const anonymous = await new Browser(gateway.current.url).graphql('{ getStatements { errors } }');
    expect(await auditOf(anonymous)).toEqual([expect.objectContaining({ action: 'refused', outcome: 'UNAUTHENTICATED', status: 401, actor: 'anonymous', fields: ['getStatements'] })]);
    const { browser } = await signedIn();
    const csrf = await browser.graphql('{ secretGreeting { response } }', undefined, { csrf: false });
    // The session was not looked up (the CSRF check comes first): the cookie's session is named all the same.
    expect(await auditOf(csrf)).toEqual([expect.objectContaining({ action: 'refused', outcome: 'CSRF_CHECK_FAILED', status: 403, actor: 'anonymous', session: sessionHash(browser.cookie) })]);
    const key = await new Browser(gateway.current.url).graphql('{ secretGreeting { response } }', undefined, { headers: { authorization: 'Bearer sgw_not-a-key' } });
    expect(await auditOf(key)).toEqual([expect.objectContaining({ action: 'refused', outcome: 'UNAUTHENTICATED' })]);
  });

  it('writes a rate-limited request with RATE_LIMITED, as the session it came from', async () => {
    const { browser } = await signedIn();
    let limited: GraphqlAnswer<unknown> | undefined;
    for (let attempt = 0; attempt < 20 && !limited; attempt++) {
      const answer = await browser.graphql('{ secretGreeting { response } }');
      if (answer.codes.includes('RATE_LIMITED')) limited = answer;
    }
    expect(limited).toBeDefined();
    rememberSecrets(browser);
    expect(await auditOf(limited!)).toEqual([expect.objectContaining({ action: 'refused', outcome: 'RATE_LIMITED', status: 429, actor: 'session', session: sessionHash(browser.cookie), fields: ['secretGreeting'] })]);
  });

  it('writes a service account\'s mutation with its account name and environment', async () => {
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: ACCOUNT.email, password: ACCOUNT.password })).status).toBe(201);
    const answer = await callWithKey(gateway.current.url, ACCOUNT.key, 'mutation($u: [String!]) { deleteStatements(uploaderIds: $u) { errors } }', { u: ['gone-1'] });
    expect(answer.codes).toEqual([]);
    expect(await auditOf(answer)).toEqual([expect.objectContaining({ action: 'mutation', outcome: 'ok', actor: 'service-account', account: ACCOUNT.name, environment: 'sandbox', fields: ['deleteStatements'], statements: 1 })]);
  });

  it('writes the drop-in front\'s sign-ins, failed and successful', async () => {
    const signIn = (password: string) => fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: DEMO_ACCOUNT.email, password }) });
    const failed = await signIn(WRONG_PASSWORD);
    expect(await auditOf(failed)).toEqual([expect.objectContaining({ action: 'front.sign-in', outcome: 'INVALID_CREDENTIALS', status: 401, actor: 'drop-in', uid: DEMO_ACCOUNT.email })]);
    const ok = await signIn(DEMO_ACCOUNT.password);
    expect(ok.status).toBe(200);
    for (const name of ['access-token', 'client']) secrets.add(ok.headers.get(name) ?? '');
    expect(await auditOf(ok)).toEqual([expect.objectContaining({ action: 'front.sign-in', outcome: 'ok', status: 200, actor: 'drop-in', uid: DEMO_ACCOUNT.email, environment: 'sandbox' })]);
  });

  it('writes the mutations the drop-in front passes through before it has verified their credential: in the headers, in the body, or none (regression)', async () => {
    const credential = await signIn(sandbox.url);
    for (const value of [credential['access-token'], credential.client]) secrets.add(value);
    const front = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    // Signed in at the upstream itself: the gateway has not seen the credential (as after 60 s idle).
    const finalize = await front({ query: 'mutation { finalizeStatements(uploaderIds: ["a-1", "a-2"]) { errors successCount } }' }, { ...credential });
    expect(finalize.status).toBe(200);
    expect(await auditOf(finalize)).toEqual([expect.objectContaining({ action: 'mutation', outcome: 'ok', status: 200, actor: 'drop-in', uid: DEMO_ACCOUNT.email, environment: 'sandbox', fields: ['finalizeStatements'], statements: 2, path: '/v2/graphql' })]);
    const submit = await front({ query: 'mutation Submit($ids: [String!]) { submitStatements(uploaderIds: $ids) { errors successCount } }', variables: { ids: ['a-1'] }, ...credential });
    expect(await auditOf(submit)).toEqual([expect.objectContaining({ action: 'mutation', outcome: 'ok', actor: 'drop-in', uid: DEMO_ACCOUNT.email, fields: ['submitStatements'], statements: 1 })]);
    const anonymous = await front({ query: 'mutation { submitStatements(uploaderIds: ["a-1"]) { errors } }' });
    expect(anonymous.status).toBe(401);
    const [line] = await auditOf(anonymous);
    expect(line).toEqual(expect.objectContaining({ action: 'mutation', outcome: 'UNAUTHENTICATED', status: 401, actor: 'drop-in', fields: ['submitStatements'] }));
    expect(line?.uid).toBeUndefined();
  });

  it('logs none of the passwords, upstream tokens, client ids, cookies or TINs of the requests above', () => {
    secrets.delete('');
    expect(secrets.size).toBeGreaterThan(8);
    const output = gateway.current.output();
    expect(output).toContain('"event":"audit"');
    for (const secret of secrets) expect(output, `a secret of ${secret.length} characters`).not.toContain(secret);
  });
});
