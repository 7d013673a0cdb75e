/**
 * Every upstream operation of sources/ through the gateway with a cookie session, in both
 * environments, with a recording proxy showing what reaches the upstream.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Environment } from '../../emulator';
import { control, DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, TEST_CREDENTIAL_KEY, TEST_REDIS_URL, useGateway } from '../support/gateway';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy';
import { ADD_NEC, FINALIZE, SUBMIT, UPDATE_NEC, VALID_CARD, VALID_NEC } from '../support/statements';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const proxies: Partial<Record<Environment, RecordingProxy>> = {};
const gateway = useGateway(() => ({
  UPSTREAM_SANDBOX_URL: proxies.sandbox?.url,
  UPSTREAM_PRODUCTION_URL: proxies.production?.url,
  REDIS_URL: TEST_REDIS_URL,
  CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
}));

beforeAll(async () => {
  proxies.sandbox = await startRecordingProxy(() => sandbox.url);
  proxies.production = await startRecordingProxy(() => production.url);
  await gateway.start();
});
afterAll(async () => {
  await Promise.all([proxies.sandbox?.close(), proxies.production?.close()]);
});
beforeEach(() => {
  proxies.sandbox?.exchanges.splice(0);
  proxies.production?.exchanges.splice(0);
});

describe.each<[Environment, 'SANDBOX' | 'PRODUCTION']>([['sandbox', 'SANDBOX'], ['production', 'PRODUCTION']])('upstream operations through the gateway in the %s', (environment, enumValue) => {
  const emulatorUrl = () => (environment === 'sandbox' ? sandbox.url : production.url);

  async function signedIn(): Promise<Browser> {
    const browser = new Browser(gateway.current.url);
    const login = await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password, enumValue);
    expect(login.codes).toEqual([]);
    expect(login.body.data?.login.environment).toBe(enumValue);
    return browser;
  }

  it('answers secretGreeting and statementDefinitions for the session\'s environment', async () => {
    const browser = await signedIn();
    const answer = await browser.graphql('{ secretGreeting { response errors } statementDefinitions { errors definitions { name fields { identifier } } } }');
    expect(answer.status).toBe(200);
    expect(answer.body.data?.secretGreeting.response).toContain(DEMO_ACCOUNT.email);
    expect(answer.body.data?.statementDefinitions.definitions).toHaveLength(12);
    const requests = await control<{ path: string; operations: string[]; uid: string | null }[]>(emulatorUrl(), 'GET', '/__emulator/requests');
    expect(requests.body.filter((r) => r.path === '/v2/graphql').map((r) => r.uid)).toContain(DEMO_ACCOUNT.email);
  });

  it('adds, reads, updates, deletes, finalizes and submits statements', async () => {
    const browser = await signedIn();
    const added = await browser.graphql(ADD_NEC, { s: [VALID_NEC, { ...VALID_NEC, uploaderId: 'nec-2' }] });
    expect(added.codes).toEqual([]);
    expect(added.body.data?.addF1099necStatements.errors).toEqual([]);
    const otxId = added.body.data?.addF1099necStatements.statements[0].statement.otxId as string;

    const read = await browser.graphql('query($o: [String!]) { getF1099necStatements(otxIds: $o) { errors statements { nodes { uploaderId nonemployeeComp } } } }', { o: [otxId] });
    expect(read.body.data?.getF1099necStatements.statements.nodes).toEqual([{ uploaderId: 'nec-1', nonemployeeComp: '1178.03' }]);

    const updated = await browser.graphql(UPDATE_NEC, { s: [{ uploaderId: 'nec-1', statement: { nonemployeeComp: '2000.00' } }] });
    expect(updated.body.data?.updateF1099necStatements.statements[0].statement.nonemployeeComp).toBe('2000.00');

    const deleted = await browser.graphql('mutation($u: [String!]) { deleteStatements(uploaderIds: $u) { errors deleteCount } }', { u: ['nec-2'] });
    expect(deleted.body.data?.deleteStatements).toEqual({ errors: [], deleteCount: 1 });

    const finalized = await browser.graphql(FINALIZE, { u: ['nec-1'], card: VALID_CARD });
    expect(finalized.body.data?.finalizeStatements).toMatchObject({ errors: [], successCount: 1 });
    const submitted = await browser.graphql(SUBMIT, { u: ['nec-1'] });
    expect(submitted.body.data?.submitStatements).toMatchObject({ errors: [], successCount: 1 });

    const all = await browser.graphql('{ getStatements { errors statements { nodes { uploaderId status } } } }');
    expect(all.body.data?.getStatements.statements.nodes).toEqual([{ uploaderId: 'nec-1', status: 2 }]);
  });

  it('passes the upstream\'s own errors lists through unchanged', async () => {
    const browser = await signedIn();
    const answer = await browser.graphql('mutation($u: [String!]) { submitStatements(uploaderIds: $u) { errors successCount } }', { u: ['no-such-statement'] });
    expect(answer.status).toBe(200);
    expect(answer.codes).toEqual([]);
    const direct = await fetch(`${emulatorUrl()}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password }) });
    const headers = { 'content-type': 'application/json', 'access-token': direct.headers.get('access-token') ?? '', client: direct.headers.get('client') ?? '', uid: DEMO_ACCOUNT.email };
    const upstream = await (await fetch(`${emulatorUrl()}/v2/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: 'mutation { submitStatements(uploaderIds: ["no-such-statement"]) { errors successCount } }' }) })).json() as { data: unknown };
    expect(answer.body.data).toEqual(upstream.data);
  });

  it('sends the session\'s credential upstream, and nothing of the browser\'s request', async () => {
    const browser = await signedIn();
    await browser.graphql('{ secretGreeting { response } }', undefined, { headers: { authorization: 'Bearer not-forwarded', 'x-custom': 'not-forwarded' } });
    const proxy = proxies[environment];
    const call = proxy?.exchanges.find((exchange) => exchange.path === '/v2/graphql');
    expect(call).toBeDefined();
    expect(call?.requestHeaders['access-token']).toBeTruthy();
    expect(call?.requestHeaders.uid).toBe(DEMO_ACCOUNT.email);
    expect(call?.requestHeaders.client).toBeTruthy();
    for (const name of ['cookie', 'x-csrf', 'authorization', 'x-custom', 'origin']) expect(call?.requestHeaders[name]).toBeUndefined();
  });
});

describe('anonymous calls', () => {
  it('confirmRegistration works without a session', async () => {
    const created = await control<{ confirmationToken: string }>(sandbox.url, 'POST', '/__emulator/accounts', { email: 'new-user@example.com' });
    const browser = new Browser(gateway.current.url);
    const answer = await browser.graphql('mutation($t: String!, $p: String!) { confirmRegistration(confirmationToken: $t, password: $p) { message errors } }', { t: created.body.confirmationToken, p: 'a-long-enough-password-123' }, { csrf: false });
    expect(answer.codes).toEqual([]);
    expect(answer.body.data?.confirmRegistration.errors).toEqual([]);
    expect((await browser.login('new-user@example.com', 'a-long-enough-password-123')).codes).toEqual([]);
  });

  it('confirmRegistration goes to the environment X-Upstream-Environment names, the sandbox without it', async () => {
    const created = await control<{ confirmationToken: string }>(production.url, 'POST', '/__emulator/accounts', { email: 'new-production-user@example.com' });
    const confirm = 'mutation($t: String!, $p: String!) { confirmRegistration(confirmationToken: $t, password: $p) { message errors } }';
    const variables = { t: created.body.confirmationToken, p: 'a-long-enough-password-123' };
    const browser = new Browser(gateway.current.url);
    expect((await browser.graphql(confirm, variables, { csrf: false })).body.data?.confirmRegistration.errors).not.toEqual([]);
    expect(proxies.sandbox?.exchanges.length).toBeGreaterThan(0);
    expect(proxies.production?.exchanges).toEqual([]);
    const answer = await browser.graphql(confirm, variables, { csrf: false, headers: { 'x-upstream-environment': 'production' } });
    expect(answer.codes).toEqual([]);
    expect(answer.body.data?.confirmRegistration.errors).toEqual([]);
    expect(proxies.production?.exchanges.length).toBeGreaterThan(0);
  });

  it('session is null without a cookie', async () => {
    const answer = await new Browser(gateway.current.url).graphql('{ session { uid } }', undefined, { csrf: false });
    expect(answer.body).toEqual({ data: { session: null } });
  });
});
