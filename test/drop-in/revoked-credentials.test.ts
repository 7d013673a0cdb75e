/**
 * A drop-in credential signed out at the upstream itself (not through the front) gets no cached
 * answer from the front more than 10 s later: the front re-verifies a credential in use with the
 * upstream, one of the client's own requests per window, and counts it
 * (statement_gateway_front_reverifications_total). Real time: the window is the contract's 10 s,
 * and the bound holds however slow the requests are (a record ends 10 s after the upstream's last
 * acceptance, re-verified or not).
 */
import { describe, expect, it } from 'vitest';
import { takeUpstreamRequests } from '../support/cache';
import { control, seed } from '../support/emulator';
import { useGatewayOnEmulators } from '../support/gateway';
import { parseMetrics } from '../support/metrics';

const PASSWORD = 'a-long-enough-password-123';
const READ = '{ getStatements { statements { nodes { otxId uploaderId } } } }';
const BOUND_MS = 10_000;

describe('a drop-in credential revoked at the upstream', () => {
  const { sandbox, gateway } = useGatewayOnEmulators();

  it('gets no cached answer more than 10 s after it was signed out directly at the upstream (regression: about 60 s)', { timeout: 40_000 }, async () => {
    const email = `front-revoked-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    await seed(sandbox.url, email, 'F1099nec', 2);
    const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    expect(signedIn.status).toBe(200);
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };
    const read = () => fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: JSON.stringify({ query: READ }) });
    expect((await read()).status).toBe(200);
    await takeUpstreamRequests(sandbox.url);
    expect((await read()).status).toBe(200);
    // Answered from the read cache: the upstream heard nothing.
    expect(await takeUpstreamRequests(sandbox.url)).toEqual([]);

    const signedOutAt = performance.now();
    expect((await fetch(`${sandbox.url}/v2/auth/sign_out`, { method: 'DELETE', headers: credential })).status).toBe(200);
    const answers: { atMs: number; status: number }[] = [];
    while (performance.now() - signedOutAt < BOUND_MS + 2_000) {
      const atMs = performance.now() - signedOutAt;
      answers.push({ atMs, status: (await read()).status });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Every 200 was sent within the bound; the refusal came, and stayed.
    expect(answers.filter((answer) => answer.status === 200 && answer.atMs > BOUND_MS)).toEqual([]);
    const firstRefusal = answers.findIndex((answer) => answer.status === 401);
    expect(firstRefusal).toBeGreaterThanOrEqual(0);
    expect(answers.slice(firstRefusal).every((answer) => answer.status === 401)).toBe(true);
  });

  it('re-verifies a credential in use with one upstream call per window, not one per request', { timeout: 40_000 }, async () => {
    const email = `front-reverified-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    await seed(sandbox.url, email, 'F1099nec', 2);
    const signedIn = await fetch(`${gateway.current.url}/v2/auth/sign_in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    const credential = { 'access-token': signedIn.headers.get('access-token') ?? '', client: signedIn.headers.get('client') ?? '', uid: email };
    const read = () => fetch(`${gateway.current.url}/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...credential }, body: JSON.stringify({ query: READ }) });
    expect((await read()).status).toBe(200);
    await takeUpstreamRequests(sandbox.url);
    const accepted = async () => parseMetrics(await (await fetch(`${gateway.current.url}/metrics`)).text()).sum('statement_gateway_front_reverifications_total', { outcome: 'accepted' });
    const acceptedBefore = await accepted();
    // 15 s of reads, 4 at a time (within the per-identity limit): every one answered, the upstream asked about once per 7 s.
    const started = performance.now();
    let answered = 0;
    while (performance.now() - started < 15_000) {
      const statuses = await Promise.all(Array.from({ length: 4 }, async () => (await read()).status));
      expect(statuses.every((status) => status === 200)).toBe(true);
      answered += statuses.length;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const upstreamCalls = (await takeUpstreamRequests(sandbox.url)).filter((request) => request.uid === email).length;
    const reverified = (await accepted()) - acceptedBefore;
    expect(answered).toBeGreaterThan(100);
    // About one re-verification per 7 s; the other upstream calls are the read cache's refills.
    expect(reverified).toBeGreaterThanOrEqual(1);
    expect(reverified).toBeLessThanOrEqual(3);
    expect(upstreamCalls).toBeLessThanOrEqual(8);
  });
});
