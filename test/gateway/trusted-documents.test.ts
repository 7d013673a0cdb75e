/**
 * Trusted documents through the gateway, with TRUSTED_DOCUMENTS_FILE (the example frontend's
 * manifest and two more documents) and TRUSTED_DOCUMENTS_ONLY=true: a browser works by document
 * ids alone, by POST and GET; browser sessions (valid or not) and anonymous callers sending a
 * query text are refused with PERSISTED_QUERY_ONLY before anything else happens, while service
 * accounts and the drop-in front still send texts; a wrong API key is UNAUTHENTICATED whatever
 * its text; unknown ids are PERSISTED_QUERY_NOT_FOUND; identity and limits apply to documents.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT, graphql, signIn } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { callWithKey, serviceAccountsEnv, testServiceAccount } from '../support/service-accounts';
import { documentId, manifestFile } from '../support/trusted-documents';

const spaManifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../examples/spa/src/gql/persisted-documents.json'), 'utf8')) as Record<string, string>;
const spaDocument = (name: string): string => {
  const found = Object.entries(spaManifest).find(([, text]) => new RegExp(`^(query|mutation) ${name}\\b`).test(text));
  if (!found) throw new Error(`no ${name} in the example's manifest`);
  return found[0];
};
const LOGIN = spaDocument('Login');
const SESSION = spaDocument('Session');
const LOGOUT = spaDocument('Logout');
const GREETING = 'query Greeting { secretGreeting { response } }';
const PAGES = `query Pages($n: Int) { ${Array.from({ length: 6 }, (_, i) => `p${i}: getStatements(first: $n) { statements { nodes { pdf } } }`).join(' ')} }`;

const service = testServiceAccount('trusted-documents');
const { sandbox, gateway } = useGatewayOnEmulators({
  TRUSTED_DOCUMENTS_FILE: manifestFile({ ...spaManifest, [documentId(GREETING)]: GREETING, [documentId(PAGES)]: PAGES }),
  TRUSTED_DOCUMENTS_ONLY: 'true',
  ...serviceAccountsEnv([service]),
});

interface Answer {
  readonly status: number;
  readonly body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } }[] };
  readonly codes: (string | undefined)[];
}

/** A browser: its cookie, X-CSRF on every request, bodies as given. */
class Page {
  cookie: string | undefined;

  async post(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  }

  async get(params: Record<string, string>): Promise<Answer> {
    return this.send(`/graphql?${new URLSearchParams(params)}`, { method: 'GET' });
  }

  private async send(target: string, init: RequestInit): Promise<Answer> {
    const headers = new Headers(init.headers);
    headers.set('x-csrf', '1');
    if (this.cookie) headers.set('cookie', this.cookie);
    const response = await fetch(`${gateway.current.url}${target}`, { ...init, headers });
    for (const value of response.headers.getSetCookie()) this.cookie = /max-age=0/i.test(value) ? undefined : value.split(';')[0];
    const body = (await response.json()) as Answer['body'];
    return { status: response.status, body, codes: (body.errors ?? []).map((error) => error.extensions?.code) };
  }
}

async function signedInPage(): Promise<Page> {
  const page = new Page();
  const login = await page.post({ documentId: `sha256:${LOGIN}`, variables: { email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password, environment: 'SANDBOX' } });
  expect(login.codes).toEqual([]);
  expect(page.cookie).toBeDefined();
  return page;
}

const PERSISTED_QUERY_ONLY = { status: 400, codes: ['PERSISTED_QUERY_ONLY'] };
const summary = (answer: Answer) => ({ status: answer.status, codes: answer.codes });

describe('trusted documents through the gateway, TRUSTED_DOCUMENTS_ONLY=true', () => {
  it('serves a browser by document ids alone: login, reads by POST and GET, logout', async () => {
    const page = await signedInPage();
    const session = await page.get({ documentId: SESSION });
    expect(session.body.data?.session).toMatchObject({ uid: DEMO_ACCOUNT.email, environment: 'SANDBOX' });
    const greeting = await page.post({ extensions: { persistedQuery: { version: 1, sha256Hash: documentId(GREETING) } } });
    expect(JSON.stringify(greeting.body.data)).toContain(DEMO_ACCOUNT.email);
    expect((await page.post({ documentId: LOGOUT })).body.data).toEqual({ logout: true });
    expect(page.cookie).toBeUndefined();
  });

  it('refuses an anonymous query text with PERSISTED_QUERY_ONLY (400) before parsing it: the upstream never hears of it', async () => {
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const anonymous = new Page();
    for (const query of ['{ secretGreeting { response } }', GREETING, '{ not graphql', `mutation { login(email: "${DEMO_ACCOUNT.email}", password: "${DEMO_ACCOUNT.password}") { uid } }`]) {
      const answer = await anonymous.post({ query });
      expect(summary(answer), query).toEqual(PERSISTED_QUERY_ONLY);
      expect(answer.body.errors?.[0]?.message).toBe('Only trusted documents are accepted here: send a documentId instead of a query text.');
    }
    expect(summary(await anonymous.get({ query: '{ session { uid } }' }))).toEqual(PERSISTED_QUERY_ONLY);
    expect(anonymous.cookie).toBeUndefined();
    expect((await control<unknown[]>(sandbox.url, 'GET', '/__emulator/requests')).body).toEqual([]);
  });

  it('refuses a browser session\'s query text, whether its session is valid or not, and with an API key added', async () => {
    const page = await signedInPage();
    expect(summary(await page.post({ query: '{ session { uid } }' }))).toEqual(PERSISTED_QUERY_ONLY);
    // A cookie decides before an Authorization header, as it does for the identity.
    expect(summary(await page.post({ query: '{ session { uid } }' }, { authorization: `Bearer ${service.key}` }))).toEqual(PERSISTED_QUERY_ONLY);
    const stale = new Page();
    stale.cookie = 'sgw_session=not-a-session-the-gateway-knows-000000000000';
    expect(summary(await stale.post({ query: '{ session { uid } }' }))).toEqual(PERSISTED_QUERY_ONLY);
    // The session is untouched by the refusals.
    expect((await page.post({ documentId: SESSION })).body.data?.session).toMatchObject({ uid: DEMO_ACCOUNT.email });
  });

  it('lets a service account send query texts (and documents)', async () => {
    // The emulator forgets accounts before each test (useEmulator).
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email: service.email, password: service.password })).status).toBe(201);
    const answer = await callWithKey(gateway.current.url, service.key, '{ secretGreeting { response } }');
    expect(answer.codes).toEqual([]);
    expect(JSON.stringify(answer.body.data)).toContain(service.email);
    const byId = await fetch(`${gateway.current.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${service.key}` }, body: JSON.stringify({ documentId: documentId(GREETING) }) });
    expect(JSON.stringify(await byId.json())).toContain(service.email);
  });

  it('answers a wrong API key with UNAUTHENTICATED (401) whatever its text, parsed or not', async () => {
    for (const query of ['{ secretGreeting { response } }', '{ not graphql', '{ noSuchField }']) {
      const answer = await callWithKey(gateway.current.url, 'sgw_not-a-key-of-any-account', query);
      expect({ status: answer.status, codes: answer.codes }, query).toEqual({ status: 401, codes: ['UNAUTHENTICATED'] });
      expect(answer.body.errors?.[0]?.message).toBe('Unknown API key.');
    }
  });

  it('lets the drop-in front\'s clients send their query texts', async () => {
    const credential = await signIn(gateway.current.url);
    const answer = await graphql<{ secretGreeting: { response: string } }>(gateway.current.url, credential, '{ secretGreeting { response } }');
    expect(answer.status).toBe(200);
    expect(answer.body.data?.secretGreeting.response).toContain(DEMO_ACCOUNT.email);
  });

  it('answers an unknown documentId or APQ hash with PERSISTED_QUERY_NOT_FOUND (400)', async () => {
    const page = await signedInPage();
    const unknown = documentId('query Unknown { session { uid } }');
    for (const answer of [await page.post({ documentId: `sha256:${unknown}` }), await page.get({ documentId: unknown }), await new Page().post({ extensions: { persistedQuery: { version: 1, sha256Hash: unknown } } })]) {
      expect(summary(answer)).toEqual({ status: 400, codes: ['PERSISTED_QUERY_NOT_FOUND'] });
    }
  });

  it('still asks who a document\'s request acts as: an anonymous caller gets UNAUTHENTICATED and nothing else', async () => {
    const answer = await new Page().post({ documentId: documentId(GREETING) });
    expect(summary(answer)).toEqual({ status: 401, codes: ['UNAUTHENTICATED'] });
    expect(answer.body.data ?? null).toBeNull();
  });

  it('holds a trusted document to the PDF limit, with its variables', async () => {
    const page = await signedInPage();
    const over = await page.post({ documentId: documentId(PAGES), variables: { n: 100 } });
    expect(summary(over)).toEqual({ status: 400, codes: ['QUERY_TOO_COMPLEX'] });
    expect(over.body.errors?.[0]?.message).toBe('The query can answer with up to 600 PDFs; at most 500 are allowed per request.');
    expect((await page.post({ documentId: documentId(PAGES), variables: { n: 1 } })).codes).toEqual([]);
  });
});
