/**
 * The drop-in front under `/sandbox/v2/...` and `/production/v2/...`: a client of the upstream that
 * picks its environment by base URL (and cannot send X-Upstream-Environment) sets
 * `https://<gateway>/production` and reaches the production upstream.
 */
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../emulator';
import { takeUpstreamRequests } from '../support/cache';
import { control, signIn } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { rawRequest } from '../support/raw-http';
import { ADD_NEC, VALID_NEC } from '../support/statements';

const PASSWORD = 'a-long-enough-password-123';
const READ = '{ getF1099necStatements { statements { nodes { uploaderId nonemployeeComp } } } }';
const json = { 'content-type': 'application/json' };

describe('the drop-in front under an environment prefix', () => {
  const { sandbox, production, gateway } = useGatewayOnEmulators();
  const emulators = { sandbox, production };

  /** Sign in, add a statement, read it, sign out: all through `<gateway><prefix>/v2/...`. */
  async function reducedWorkflow(prefix: string, email: string): Promise<{ statuses: number[]; uploaderIds: unknown }> {
    const base = `${gateway.current.url}${prefix}`;
    const signedIn = await fetch(`${base}/v2/auth/sign_in`, { method: 'POST', headers: json, body: JSON.stringify({ email, password: PASSWORD }) });
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: signedIn.headers.get('uid') ?? '' };
    const query = (document: string, variables: Record<string, unknown> = {}) =>
      fetch(`${base}/v2/graphql`, { method: 'POST', headers: { ...json, ...credential }, body: JSON.stringify({ query: document, variables }) });
    const added = await query(ADD_NEC, { s: [VALID_NEC] });
    const read = await query(READ);
    const readBody = (await read.json()) as { data?: { getF1099necStatements: { statements: { nodes: { uploaderId: string }[] } } } };
    const out = await fetch(`${base}/v2/auth/sign_out`, { method: 'DELETE', headers: credential });
    const after = await query(READ);
    return {
      statuses: [signedIn.status, added.status, read.status, out.status, after.status],
      uploaderIds: readBody.data?.getF1099necStatements.statements.nodes.map((node) => node.uploaderId),
    };
  }

  it.each<Environment>(['production', 'sandbox'])('runs sign-in, add, read and sign-out under /%s/v2/ against that environment\'s upstream', async (environment) => {
    const other = environment === 'production' ? sandbox : production;
    const email = `front-prefix-${environment}-${Date.now()}@example.com`;
    // The account exists in this environment only: a request sent to the other one fails its sign-in.
    expect((await control(emulators[environment].url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    await takeUpstreamRequests(emulators[environment].url);
    await takeUpstreamRequests(other.url);

    const outcome = await reducedWorkflow(`/${environment}`, email);

    expect(outcome).toEqual({ statuses: [200, 200, 200, 200, 401], uploaderIds: ['nec-1'] });
    const reached = await takeUpstreamRequests(emulators[environment].url);
    expect(reached.map((request) => request.path)).toEqual(expect.arrayContaining(['/v2/auth/sign_in', '/v2/graphql', '/v2/auth/sign_out']));
    expect(reached.flatMap((request) => request.operations)).toEqual(expect.arrayContaining(['addF1099necStatements', 'getF1099necStatements']));
    expect(await takeUpstreamRequests(other.url)).toEqual([]);
  });

  it('refuses a prefix that X-Upstream-Environment contradicts with 400, and accepts one it repeats', async () => {
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'wrong-password-000000' });
    await takeUpstreamRequests(sandbox.url);
    await takeUpstreamRequests(production.url);
    for (const [path, header] of [['/sandbox/v2/auth/sign_in', 'production'], ['/production/v2/auth/sign_in', 'sandbox'], ['/production/v2/graphql', 'sandbox']] as const) {
      const answer = await fetch(`${gateway.current.url}${path}`, { method: 'POST', headers: { ...json, 'x-upstream-environment': header }, body });
      expect(answer.status, path).toBe(400);
      expect(((await answer.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('BAD_REQUEST');
    }
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
    expect(await takeUpstreamRequests(production.url)).toEqual([]);

    const repeated = await fetch(`${gateway.current.url}/production/v2/auth/sign_in`, { method: 'POST', headers: { ...json, 'x-upstream-environment': 'Production' }, body });
    expect(repeated.status).toBe(401);
    expect((await takeUpstreamRequests(production.url)).map((request) => request.path)).toEqual(['/v2/auth/sign_in']);
  });

  it('answers other paths under the prefixes with 404, as before', async () => {
    for (const path of ['/production/graphql', '/staging/v2/graphql', '/production/v2/other']) {
      const answer = await fetch(`${gateway.current.url}${path}`, { method: 'POST', headers: json, body: '{"query":"{ __typename }"}' });
      expect(answer.status, path).toBe(404);
    }
  });

  // Regression: the front took its route from the path as written and its environment from the
  // path as resolved, so `/x/../production/v2/auth/sign_in` signed in at the sandbox, and
  // `/x/../production/v2/graphql` with a sandbox credential answered sandbox data.
  it('refuses a front path with dot segments with 400 before routing, and neither upstream hears of it', async () => {
    const email = `front-dots-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    const credential = await signIn(sandbox.url, email, PASSWORD);
    await takeUpstreamRequests(sandbox.url);
    await takeUpstreamRequests(production.url);
    const host = `Host: ${new URL(gateway.current.url).host}`;
    const signInBody = JSON.stringify({ email, password: PASSWORD });
    const readBody = JSON.stringify({ query: READ });
    const credentialHeaders = Object.entries(credential).map(([name, value]) => `${name}: ${value}`);
    const attempts: [string, string[], string][] = [
      ['/x/../production/v2/auth/sign_in', [], signInBody],
      ['/x/%2E%2E/production/v2/auth/sign_in', [], signInBody],
      ['/x/../production/v2/graphql', credentialHeaders, readBody],
      ['/production/./v2/graphql', credentialHeaders, readBody],
      ['/production/v2/x/%2e%2e/graphql', credentialHeaders, readBody],
    ];
    for (const [target, headers, body] of attempts) {
      const answer = await rawRequest(gateway.current.url, `POST ${target} HTTP/1.1`, [host, 'Content-Type: application/json', ...headers], body);
      expect([answer.status, answer.headers['content-type']], target).toEqual([400, 'application/json; charset=utf-8']);
      expect((JSON.parse(answer.body) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code, target).toBe('BAD_REQUEST');
      expect(answer.body, target).not.toContain('"data"');
    }
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);
    expect(await takeUpstreamRequests(production.url)).toEqual([]);
  });
});
