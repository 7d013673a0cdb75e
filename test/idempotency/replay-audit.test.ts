/**
 * The audit trail of idempotent mutations: the run and its replay are two lines tied by the hash
 * of the key, the replay's outcome says nothing ran (`idempotent.replayed`), and neither line
 * holds the Idempotency-Key or a variable's value. A replay audited as `ok` would read as a second
 * filing with the tax authority.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { control, DEMO_ACCOUNT } from '../support/emulator';
import { Browser, useGatewayOnEmulators } from '../support/gateway';

const { sandbox, gateway } = useGatewayOnEmulators();

const ADD = 'mutation Add($s: [Fw2Input!]!) { addFw2Statements(statements: $s) { errors statements { recordNumber } } }';
const TIN = '987-65-4321';
const variables = (uploaderId: string) => ({ s: [{ uploaderId, recipientFirstName: 'Ada', recipientLastName: 'Lovelace', recipientTin: TIN }] });

interface AuditLine { event: string; action: string; outcome: string; status: number; requestId: string; idempotencyKey?: string; fields?: string[]; statements?: number }

async function send(browser: Browser, key: string, uploaderId: string): Promise<Response> {
  return fetch(`${browser.gatewayUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf': '1', cookie: browser.cookie ?? '', 'idempotency-key': key },
    body: JSON.stringify({ query: ADD, variables: variables(uploaderId) }),
  });
}

async function auditLinesOf(response: Response): Promise<{ lines: AuditLine[]; raw: string }> {
  const id = response.headers.get('x-request-id');
  // The line is written as the answer leaves.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const raw = gateway.current.output().split('\n').filter((line) => line.startsWith('{') && line.includes(`"${id ?? '-'}"`));
  return { lines: raw.map((line) => JSON.parse(line) as AuditLine).filter((line) => line.event === 'audit' && line.requestId === id), raw: raw.join('\n') };
}

describe('the audit trail of idempotent mutations', () => {
  it('audits a replay as idempotent.replayed, tied to its run by the key hash, never naming the key or the variables', async () => {
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    await control(sandbox.url, 'DELETE', '/__emulator/requests');
    const key = randomUUID();
    const uploaderId = `audit-${randomUUID()}`;

    const first = await send(browser, key, uploaderId);
    const again = await send(browser, key, uploaderId);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(await first.text());

    const run = await auditLinesOf(first);
    const replay = await auditLinesOf(again);
    expect(run.lines).toHaveLength(1);
    expect(replay.lines).toHaveLength(1);
    expect(run.lines[0]).toMatchObject({ action: 'mutation', outcome: 'ok', status: 200, fields: ['addFw2Statements'], statements: 1 });
    expect(replay.lines[0]).toMatchObject({ action: 'mutation', outcome: 'idempotent.replayed', status: 200, fields: ['addFw2Statements'] });
    expect(run.lines[0]?.idempotencyKey).toMatch(/^[0-9a-f]{12}$/);
    expect(replay.lines[0]?.idempotencyKey).toBe(run.lines[0]?.idempotencyKey);
    for (const secret of [key, uploaderId, TIN]) expect(run.raw + replay.raw).not.toContain(secret);

    // A new key is a new intent: its own hash.
    const other = await send(browser, randomUUID(), `audit-${randomUUID()}`);
    expect((await auditLinesOf(other)).lines[0]?.idempotencyKey).not.toBe(run.lines[0]?.idempotencyKey);
    const adds = (await control<{ operations: string[] }[]>(sandbox.url, 'GET', '/__emulator/requests')).body.filter((entry) => entry.operations.includes('addFw2Statements'));
    expect(adds).toHaveLength(2);
  });
});
