/**
 * The gateway's one sign-in and sign-out (src/gateway/mesh-auth.ts), in process against the
 * emulator: Mesh's hidden REST operations, run on the SignIn source's own schema, over the
 * gateway's upstream client. The service accounts sign in through it (seen from the source's own
 * field resolvers, the emulator's request log and the upstream metrics), and its answers keep the
 * codes the callers act on: a refused password is a value, no answer is thrown.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MeshInstance } from '@graphql-mesh/runtime';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ServiceAccount } from '../../src/credentials/service-accounts';
import { GatewayError } from '../../src/errors';
import { createMetrics } from '../../src/observability/metrics';
import { createUpstreamFetch } from '../../src/upstream/fetch';
import { meshUpstreamAuth } from '../../src/gateway/mesh-auth';
import { upstreamTarget } from '../../src/upstream/target';
import { capturedLog } from '../support/captured-log';
import { control, credentialFrom, signInRaw, useEmulator } from '../support/emulator';
import { serviceAccountsFor } from '../support/identities';
import { specMesh } from '../support/mesh-auth';
import { parseMetrics } from '../support/metrics';
import { UpstreamOutcomes } from '../../src/upstream/outcome';

const upstream = useEmulator('sandbox');
/** The SignIn source's root fields whose own resolvers (Mesh's REST operations) ran, as `Source.field`. */
const delegated: string[] = [];
let mesh: MeshInstance;

beforeAll(async () => {
  mesh = await specMesh();
  // Observed, not replaced: each of the source's mutations notes its call, then runs as built.
  const source = mesh.rawSources.find((candidate) => candidate.name === 'SignIn');
  for (const field of Object.values(source?.schema.getMutationType()?.getFields() ?? {})) {
    const resolve = field.resolve;
    if (!resolve) continue;
    field.resolve = (...args) => (delegated.push(`SignIn.${field.name}`), resolve(...args));
  }
  expect(Object.keys(source?.schema.getMutationType()?.getFields() ?? {})).toEqual(expect.arrayContaining(['signIn', 'signOut']));
});

function setup() {
  const { log } = capturedLog('silent');
  const metrics = createMetrics({ processMetrics: false });
  const auth = meshUpstreamAuth(mesh, createUpstreamFetch({ timeoutMs: 2_000, log, metrics }), new UpstreamOutcomes());
  const upstreams = { sandbox: upstreamTarget('sandbox', upstream.url), production: upstreamTarget('production', 'http://production.test') };
  delegated.length = 0;
  return { log, metrics, auth, upstreams, target: upstreams.sandbox };
}

/** The emulator's requests since the last call, by path. */
async function upstreamPaths(): Promise<string[]> {
  const requests = await control<{ path: string; status: number }[]>(upstream.url, 'GET', '/__emulator/requests');
  await control(upstream.url, 'DELETE', '/__emulator/requests');
  return requests.body.map((request) => `${request.path} ${request.status}`);
}

/** Upstream calls counted by the metrics, by operation. */
async function upstreamCalls(metrics: ReturnType<typeof createMetrics>, operation: string): Promise<number> {
  return parseMetrics(await metrics.registry.metrics()).sum('statement_gateway_upstream_request_duration_seconds_count', { operation });
}

async function newAccount(): Promise<ServiceAccount> {
  const account: ServiceAccount = {
    name: `spec-${randomBytes(4).toString('hex')}`,
    apiKeySha256: createHash('sha256').update(randomBytes(16)).digest(),
    email: `svc-${randomBytes(4).toString('hex')}@example.com`,
    password: `service-password-${randomBytes(6).toString('hex')}`,
    environment: 'sandbox',
    requestsPerMinute: 100,
  };
  expect((await control(upstream.url, 'POST', '/__emulator/accounts', { email: account.email, password: account.password })).status).toBe(201);
  return account;
}

describe("the service accounts' sign-in", () => {
  it('goes through the Mesh source SignIn (its signIn operation) and the upstream client, once', async () => {
    const { log, metrics, auth, upstreams } = setup();
    const account = await newAccount();
    await upstreamPaths();
    const accounts = serviceAccountsFor([account], { log, metrics, upstreams, auth });
    const lease = await accounts.credentials.lease(account);
    expect(lease.credential.uid).toBe(account.email);
    expect(delegated).toEqual(['SignIn.signIn']);
    expect(await upstreamPaths()).toEqual(['/v2/auth/sign_in 200']);
    expect(await upstreamCalls(metrics, 'signIn')).toBe(1);
  });
});

describe('meshUpstreamAuth', () => {
  it('signs in: the credential from the answer\'s headers, which the upstream accepts', async () => {
    const { auth, target } = setup();
    const account = await newAccount();
    const signedIn = await auth.signIn(target, account.email, account.password);
    if (!signedIn.ok) throw new Error(`not signed in: ${signedIn.code}`);
    expect(signedIn.credential.uid).toBe(account.email);
    expect(signedIn.credential.expiry).toBeGreaterThan(Date.now() / 1000);
  });

  it('answers a refused password with UNAUTHENTICATED, as a value', async () => {
    const { auth, target } = setup();
    const account = await newAccount();
    expect(await auth.signIn(target, account.email, 'not-the-password')).toEqual({ ok: false, code: 'UNAUTHENTICATED' });
  });

  it('throws UPSTREAM_UNAVAILABLE when the upstream does not answer (5xx, after its retries)', async () => {
    const { auth, target, metrics } = setup();
    await control(upstream.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    const failure = await auth.signIn(target, 'nobody@example.com', 'password').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).code).toBe('UPSTREAM_UNAVAILABLE');
    expect(await upstreamCalls(metrics, 'signIn')).toBe(1);
  });

  it('throws UPSTREAM_UNAVAILABLE when nothing listens at the upstream', async () => {
    const { auth } = setup();
    const failure = await auth.signIn(upstreamTarget('sandbox', 'http://127.0.0.1:9'), 'nobody@example.com', 'password').catch((error: unknown) => error);
    expect((failure as GatewayError).code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('signs out through SignIn.signOut: the credential stops working, and signing it out again is still ok (404)', async () => {
    const { auth, target, metrics } = setup();
    const account = await newAccount();
    const raw = await signInRaw(upstream.url, account.email, account.password);
    const headers = credentialFrom(raw.headers);
    const credential = { accessToken: headers['access-token'], client: headers.client, uid: headers.uid };
    await upstreamPaths();
    expect(await auth.signOut(target, credential)).toBe('ok');
    expect(delegated).toEqual(['SignIn.signOut']);
    expect(await auth.signOut(target, credential)).toBe('ok');
    expect(await upstreamPaths()).toEqual(['/v2/auth/sign_out 200', '/v2/auth/sign_out 404']);
    expect(await upstreamCalls(metrics, 'signOut')).toBe(2);
  });

  it('reports a sign-out the upstream could not answer as failed, without throwing, and makes it once', async () => {
    const { auth, target, metrics } = setup();
    await control(upstream.url, 'PATCH', '/__emulator/settings', { failStatus: 503 });
    expect(await auth.signOut(target, { accessToken: 'a', client: 'b', uid: 'c' })).toBe('failed');
    expect(await upstreamCalls(metrics, 'signOut')).toBe(1);
    expect((await upstreamPaths()).filter((path) => path.startsWith('/v2/auth/sign_out'))).toHaveLength(1);
  });
});
