/**
 * The drop-in front: a client written for the upstream changes only its base URL. The upstream's
 * own tutorial workflow runs once against the emulator and once through the gateway, and every
 * answer must match; then the front's own promises (caches, refusals, environments, failures).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { takeUpstreamRequests } from '../support/cache';
import { control, graphql, seed, signInRaw, type Credential } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { pdfText } from '../support/pdf-text';

const SAMPLES = join(__dirname, '..', 'fixtures', 'upstream', 'samples');
const sample = (name: string) => JSON.parse(readFileSync(join(SAMPLES, name), 'utf8')) as Record<string, unknown>[];
const ALL = ['23911', '23912', '23913', '23914', '23915'];
const PASSWORD = 'a-long-enough-password-123';
const CREDENTIAL_HEADERS = ['access-token', 'authorization', 'client', 'expiry', 'token-type', 'uid'];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The tutorial's toGqlObject: statements written inline into the document. */
function toGqlObject(obj: Record<string, unknown>): string {
  const items = Object.entries(obj).map(([k, v]) =>
    `${k}: ${typeof v === 'object' && v !== null && !Array.isArray(v) ? toGqlObject(v as Record<string, unknown>) : JSON.stringify(v)}`);
  return `\n{${items.join('\n')}\n}\n`;
}
const ids = (list: string[]) => list.map((id) => `"${id}"`).join(',');

interface Step {
  readonly step: string;
  readonly status: number;
  readonly credentialHeaders: string[];
  readonly body: unknown;
}

/** An answer with what differs between two accounts replaced: ids, the e-mail, PDFs by their text. */
async function normalized(value: unknown, email: string): Promise<unknown> {
  if (typeof value === 'string') {
    if (value.startsWith('JVBER')) return `<pdf: ${(await pdfText(value)).replace(/\s+/g, ' ').replace(UUID, '<uuid>')}>`;
    return value.replaceAll(email, '<email>').replace(UUID, '<uuid>');
  }
  if (Array.isArray(value)) return Promise.all(value.map((entry) => normalized(entry, email)));
  if (typeof value === 'object' && value !== null) {
    const entries = await Promise.all(Object.entries(value).map(async ([key, entry]) => [key, key === 'id' ? '<id>' : await normalized(entry, email)] as const));
    return Object.fromEntries(entries);
  }
  return value;
}

/**
 * The tutorial (OtterTax/tutorial-source-code) as plain HTTP against `baseUrl`: sign in, add the
 * five 1099-NEC statements, check, correct, check, download the PDFs (twice), delete 23913,
 * finalize, submit, sign out (the JavaScript tutorial's body form).
 */
async function tutorial(baseUrl: string, email: string, onStep: (step: string) => Promise<void> = () => Promise.resolve()): Promise<Step[]> {
  const steps: Step[] = [];
  const record = async (step: string, response: Response) => {
    const text = await response.text();
    steps.push({
      step,
      status: response.status,
      credentialHeaders: CREDENTIAL_HEADERS.filter((name) => response.headers.get(name) !== null),
      body: await normalized(JSON.parse(text) as unknown, email),
    });
    await onStep(step);
    return response;
  };
  const signedIn = await record('sign in', await fetch(`${baseUrl}/v2/auth/sign_in`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }),
  }));
  const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: signedIn.headers.get('uid') ?? '' };
  const query = async (step: string, document: string) =>
    record(step, await fetch(`${baseUrl}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: JSON.stringify({ query: document }) }));

  const statements = sample('f1099nec-data.json').map(toGqlObject).join('\n');
  await query('add', `mutation { addF1099necStatements(statements: [${statements}]) {
    errors statements { recordNumber statement { otxId uploaderId recipientFirstName recipientLastName tags } messages } } }`);
  const check = `query { getF1099necStatements(uploaderIds: [${ids(ALL)}]) { errors statements { pageInfo { hasNextPage }
    nodes { otxId uploaderId statementValid validationMessages status statusDescription } } } }`;
  await query('check', check);
  const corrections = sample('f1099nec-corrections.json').map(toGqlObject).join('\n');
  await query('correct', `mutation { updateF1099necStatements(statements: [ ${corrections} ]) {
    statements { recordNumber statement { otxId uploaderId nonemployeeComp recipientCity recipientZipCode } messages } errors } }`);
  await query('check again', check);
  const download = `query { getStatements(uploaderIds: [${ids(ALL)}]) { errors statements { nodes { otxId uploaderId pdf } } } }`;
  await query('download', download);
  await query('download again', download);
  await query('delete', `mutation { deleteStatements(uploaderIds: [${ids(['23913'])}]) { errors deleteCount } }`);
  await query('finalize', `mutation { finalizeStatements(uploaderIds: [${ids(ALL.filter((id) => id !== '23913'))}]) {
    errors messages { messages otxId uploaderId } successCount } }`);
  await query('submit', `mutation { submitStatements(uploaderIds: [${ids(ALL)}]) { errors successCount } }`);
  await query('after', `query { getStatements(uploaderIds: [${ids(ALL)}]) { statements { nodes { uploaderId status submissionStatus pdf } } } }`);
  await record('sign out', await fetch(`${baseUrl}/v2/auth/sign_out`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credential) }));
  await query('after sign-out', '{ secretGreeting { response } }');
  return steps;
}

async function newUser(emulatorUrl: string, label: string): Promise<string> {
  const email = `front-${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  expect((await control(emulatorUrl, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
  return email;
}

async function pdfHits(gatewayUrl: string): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  return Number(/^statement_gateway_cache_lookups_total\{cache="pdf",result="hit"\} (\d+)/m.exec(text)?.[1] ?? 'NaN');
}

const READ = '{ getStatements { statements { nodes { otxId uploaderId } } } }';
const front = (gatewayUrl: string, credential: Credential | null, query: string, headers: Record<string, string> = {}) =>
  fetch(`${gatewayUrl}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(credential ?? {}), ...headers }, body: JSON.stringify({ query }) });

describe('the drop-in front', () => {
  const { sandbox, production, gateway } = useGatewayOnEmulators();

  it('answers the upstream tutorial workflow exactly as the upstream does, the second PDF download from the PDF cache', async () => {
    const direct = await tutorial(sandbox.url, await newUser(sandbox.url, 'direct'));

    const email = await newUser(sandbox.url, 'front');
    const upstreamCalls = new Map<string, string[][]>();
    await takeUpstreamRequests(sandbox.url);
    let hitsBefore = 0;
    let hitsOfSecondDownload = 0;
    const through = await tutorial(gateway.current.url, email, async (step) => {
      upstreamCalls.set(step, (await takeUpstreamRequests(sandbox.url)).map((request) => request.operations));
      if (step === 'download') hitsBefore = await pdfHits(gateway.current.url);
      if (step === 'download again') hitsOfSecondDownload = (await pdfHits(gateway.current.url)) - hitsBefore;
    });

    expect(through.map((step) => step.step)).toEqual(direct.map((step) => step.step));
    for (const [index, step] of through.entries()) expect({ ...step }, step.step).toEqual(direct[index]);
    expect(direct.find((step) => step.step === 'after sign-out')?.status).toBe(401);

    // The second download asked the upstream for the statements (access is re-checked) but not the PDFs.
    expect(upstreamCalls.get('download')).toHaveLength(2);
    expect(upstreamCalls.get('download again')).toEqual([['getStatements']]);
    expect(hitsOfSecondDownload).toBe(5);
  });

  it('answers the tutorial under the /production prefix exactly as the production upstream does', async () => {
    const direct = await tutorial(production.url, await newUser(production.url, 'direct-production'));
    await takeUpstreamRequests(sandbox.url);
    const through = await tutorial(`${gateway.current.url}/production`, await newUser(production.url, 'front-production'));
    expect(through).toEqual(direct);
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
  });

  it("passes the upstream's own refusal on for no credential, a forged token, or a signed-out one, even for a cached read", async () => {
    const email = await newUser(sandbox.url, 'refusal');
    await seed(sandbox.url, email, 'F1099nec', 2);
    const signedIn = await signInRaw(sandbox.url, email, PASSWORD);
    expect(signedIn.status).toBe(200);
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };
    // Twice: the first answer makes the credential trusted, the second is cached.
    for (let round = 0; round < 2; round++) expect((await front(gateway.current.url, credential, READ)).status).toBe(200);
    await takeUpstreamRequests(sandbox.url);
    const cached = await front(gateway.current.url, credential, READ);
    expect(cached.status).toBe(200);
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
    // As devise echoes the presented credential: every header, the sign-in's expiry included.
    expect(CREDENTIAL_HEADERS.filter((name) => cached.headers.get(name) !== null)).toEqual(CREDENTIAL_HEADERS);
    expect(cached.headers.get('access-token')).toBe(credential['access-token']);
    expect(cached.headers.get('expiry')).toBe(signedIn.headers.get('expiry'));

    const upstreamRefusal = await graphql(sandbox.url, null, READ);
    for (const attempt of [null, { ...credential, 'access-token': 'forged-token-000000000' }, { ...credential, client: 'another-client' }]) {
      const answer = await front(gateway.current.url, attempt, READ);
      expect(answer.status).toBe(401);
      expect(await answer.json()).toEqual(upstreamRefusal.body);
    }

    const out = await fetch(`${gateway.current.url}/v2/auth/sign_out`, { method: 'DELETE', headers: credential });
    expect(out.status).toBe(200);
    expect(await out.json()).toEqual({ success: true });
    const after = await front(gateway.current.url, credential, READ);
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual(upstreamRefusal.body);
  });

  it('hands back the credential headers, rotated tokens included, and never a cookie', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { rotateTokens: true });
    try {
      const email = await newUser(sandbox.url, 'rotation');
      const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
      let credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };
      const tokens = new Set([credential['access-token']]);
      for (let round = 0; round < 3; round++) {
        const answer = await front(gateway.current.url, credential, '{ secretGreeting { response } }');
        expect(answer.status).toBe(200);
        expect(answer.headers.getSetCookie()).toEqual([]);
        const next = answer.headers.get('access-token') ?? '';
        expect(next).not.toBe(credential['access-token']);
        expect(answer.headers.get('client')).toBe(credential.client);
        if (next.trim()) credential = { ...credential, 'access-token': next };
        tokens.add(credential['access-token']);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // The first two answers at least are rotations (a batch window starts with the second).
      expect(tokens.size).toBeGreaterThanOrEqual(3);
    } finally {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { rotateTokens: false });
    }
  });

  it('reaches production with X-Upstream-Environment: production, and the sandbox without it', async () => {
    const email = `front-production-${Date.now()}@example.com`;
    expect((await control(production.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    const body = JSON.stringify({ email, password: PASSWORD });
    const headers = { 'content-type': 'application/json' };
    expect((await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers, body })).status).toBe(401);
    const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { ...headers, 'x-upstream-environment': 'production' }, body });
    expect(signedIn.status).toBe(200);
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };
    expect((await front(gateway.current.url, credential, READ, { 'x-upstream-environment': 'production' })).status).toBe(200);
    expect((await front(gateway.current.url, credential, READ)).status).toBe(401);
  });

  it('answers the gateway-only fields as the upstream answers fields it does not have: 200, its body (locations, no code) and its credential headers (regression)', async () => {
    // Signed in through the front: the credential is verified, so the gateway itself validates.
    const signedIn = await signInRaw(gateway.current.url, await newUser(sandbox.url, 'fields'), PASSWORD);
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: signedIn.headers.get('uid') ?? '' };
    for (const query of ['{ session { uid } }', 'mutation { logout }']) {
      const upstream = await graphql(sandbox.url, credential, query);
      const answer = await front(gateway.current.url, credential, query);
      expect(answer.status).toBe(upstream.status);
      expect(await answer.json()).toEqual(upstream.body);
      for (const name of ['access-token', 'client', 'uid', 'expiry', 'token-type', 'authorization']) expect(answer.headers.get(name), name).toBe(upstream.headers.get(name));
    }
  });

  it('never trusts a forged credential: not after an answer that needed no credential, not from another environment, not to empty caches', async () => {
    const victim = await newUser(sandbox.url, 'victim');
    await seed(sandbox.url, victim, 'F1099nec', 2);
    const signedIn = await signInRaw(sandbox.url, victim, PASSWORD);
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: victim };
    for (let round = 0; round < 2; round++) expect((await front(gateway.current.url, credential, READ)).status).toBe(200);
    const forged = { ...credential, 'access-token': 'forged-token-000000000', client: 'forged-client' };

    // confirmRegistration answers 200 without a credential: that proves nothing about this one.
    const confirm = await front(gateway.current.url, forged, 'mutation { confirmRegistration(confirmationToken: "x", password: "a-long-enough-password-123") { errors } }');
    expect(confirm.status).toBe(200);
    const afterConfirm = await front(gateway.current.url, forged, READ);
    expect(afterConfirm.status).toBe(401);

    // A forged mutation is refused upstream and leaves the victim's cached read in place.
    await takeUpstreamRequests(sandbox.url);
    expect((await front(gateway.current.url, forged, 'mutation { deleteStatements { deleteCount errors } }')).status).toBe(401);
    await takeUpstreamRequests(sandbox.url);
    expect((await front(gateway.current.url, credential, READ)).status).toBe(200);
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);

    // The sandbox credential, trusted in the sandbox, is not trusted for production's caches.
    const productionUser = `front-victim-production-${Date.now()}@example.com`;
    expect((await control(production.url, 'POST', '/__emulator/accounts', { email: productionUser, password: PASSWORD })).status).toBe(201);
    const productionSignIn = await signInRaw(production.url, productionUser, PASSWORD);
    const productionCredential = { 'access-token': productionSignIn.headers.get('access-token') ?? '', client: productionSignIn.headers.get('client') ?? '', uid: productionUser };
    const asProduction = { 'x-upstream-environment': 'production' };
    for (let round = 0; round < 2; round++) expect((await front(gateway.current.url, productionCredential, READ, asProduction)).status).toBe(200);
    const crossed = { ...credential, uid: productionUser };
    expect((await front(gateway.current.url, crossed, READ, asProduction)).status).toBe(401);
  });

  it('answers an upstream outage with UPSTREAM_UNAVAILABLE and no upstream URL', async () => {
    await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    try {
      const answers = [
        await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"a@example.com","password":"x"}' }),
        await fetch(`${gateway.current.url}/v2/auth/sign_out`, { method: 'DELETE', headers: { 'access-token': 'a', client: 'b', uid: 'c' } }),
        await front(gateway.current.url, { 'access-token': 'a', client: 'b', uid: 'c' }, READ),
        await front(gateway.current.url, null, READ),
      ];
      for (const answer of answers) {
        const text = await answer.text();
        expect(answer.status).toBe(503);
        expect(text).toContain('UPSTREAM_UNAVAILABLE');
        expect(text).not.toContain(sandbox.url.replace('http://', ''));
      }
    } finally {
      await control(sandbox.url, 'PATCH', '/__emulator/settings', { failStatus: null });
    }
  });
});
