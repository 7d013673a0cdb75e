/**
 * `POST /ops/sessions/revoke` where the gateway serves it: on PORT without OPS_PORT, on the ops
 * listener (and not on PORT) with it, each answer with its audit line carrying the request id.
 * What the handler refuses: session-revoke.unit.test.ts; what it ends: test/e2e/session-revocation.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control } from '../support/emulator';
import { Browser, startTestGateway, useGatewayOnEmulators } from '../support/gateway';
import type { InProcessGateway } from '../support/in-process';

const TOKEN = 'session-revoke-ops-token-0123456789';
const { sandbox, gateway } = useGatewayOnEmulators({ OPS_TOKEN: TOKEN });
let withOpsPort: InProcessGateway | undefined;
beforeAll(async () => {
  withOpsPort = await startTestGateway({ OPS_PORT: '0', OPS_TOKEN: TOKEN, UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: sandbox.url });
});
afterAll(() => withOpsPort?.stop());

const revoke = (base: string, uid: string) => fetch(`${base}/ops/sessions/revoke`, {
  method: 'POST',
  headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  body: JSON.stringify({ environment: 'sandbox', uid, reason: 'listener test' }),
});

/** The audit lines of `requestId` in a gateway's output. */
const auditOf = (output: string, requestId: string) => output.split('\n').filter((line) => line.includes('"event":"audit"') && line.includes(requestId)).map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the operators\' revoke on each listener', () => {
  it('is served on PORT without OPS_PORT, ending the user\'s sessions, with an audit line of the request', async () => {
    const email = `listener-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: 'a-long-enough-password-123' })).status).toBe(201);
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(email, 'a-long-enough-password-123')).codes).toEqual([]);
    const answer = await revoke(gateway.current.url, email);
    expect([answer.status, await answer.json()]).toEqual([200, { ended: 1 }]);
    expect((await browser.graphql('{ session { uid } }')).body.data).toEqual({ session: null });
    const requestId = answer.headers.get('x-request-id') ?? '';
    const [line, ...others] = auditOf(gateway.current.output(), requestId);
    expect(others).toEqual([]);
    expect(line).toMatchObject({ action: 'ops.sessions.revoke', outcome: 'ok', status: 200, requestId, counts: { ended: 1 } });
    expect(JSON.stringify(line)).not.toContain(email);
  });

  it('is served on OPS_PORT\'s listener, and not on PORT, when OPS_PORT is set', async () => {
    const ops = withOpsPort?.opsUrl ?? '';
    expect(ops).not.toBe('');
    const onOps = await revoke(ops, 'nobody@example.com');
    expect([onOps.status, await onOps.json()]).toEqual([200, { ended: 0 }]);
    const requestId = onOps.headers.get('x-request-id') ?? '';
    expect(requestId).not.toBe('');
    expect(auditOf(withOpsPort?.output() ?? '', requestId)).toEqual([expect.objectContaining({ action: 'ops.sessions.revoke', status: 200, requestId })]);
    expect((await revoke(withOpsPort?.url ?? '', 'nobody@example.com')).status).toBe(404);
  });
});
