/**
 * `POST /ops/sessions/revoke` as a plain handler (src/ops/session-revoke.ts): who may call it, what
 * it refuses before anything is ended, what it answers, and its audit line. What ending does is
 * test/session/user-sessions.test.ts's; the whole path through a gateway, test/e2e/session-revocation.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDerivedKeys } from '../../src/derived-keys';
import type { Environment } from '../../src/environment';
import { createOpsAccess } from '../../src/ops/access';
import { SESSION_REVOKE_PATH, sessionRevokeEndpoint } from '../../src/ops/session-revoke';
import { capturedLog } from '../support/captured-log';

const TOKEN = 'an-ops-token-of-enough-length-0123';
const URL_ = `http://gateway.test${SESSION_REVOKE_PATH}`;
const loopback = { req: { socket: { remoteAddress: '127.0.0.1' } } };
const remote = { req: { socket: { remoteAddress: '203.0.113.9' } } };

interface SendOptions {
  readonly method?: string;
  /** null: no Authorization header. */
  readonly authorization?: string | null;
  /** The server context: the socket the request came from. */
  readonly from?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

function setUp({ withToken = true, fails = false } = {}) {
  const captured = capturedLog();
  const calls: [Environment, string][] = [];
  const keys = createDerivedKeys(randomBytes(32));
  const endpoint = sessionRevokeEndpoint({
    revoke: (environment, uid) => {
      calls.push([environment, uid]);
      return fails ? Promise.reject(new Error('connection lost')) : Promise.resolve(3);
    },
    access: createOpsAccess({ ...(withToken ? { token: TOKEN } : {}), trustProxy: 0 }),
    names: keys,
    log: captured.log,
    trustProxy: 0,
  });
  const send = async (body: unknown, { method = 'POST', authorization = `Bearer ${TOKEN}`, from = loopback, headers = {} }: SendOptions = {}) => {
    const init: RequestInit = { method, headers: { 'content-type': 'application/json', ...headers, ...(authorization ? { authorization } : {}) } };
    if (method === 'POST') init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const answer = await endpoint(new Request(URL_, init), from);
    if (!answer) throw new Error('not answered');
    return { status: answer.status, headers: answer.headers, body: (await answer.json()) as Record<string, unknown> };
  };
  const audits = () => captured.events('audit');
  return { send, calls, audits, keys };
}

const VALID = { environment: 'sandbox', uid: 'taken-over@example.com', reason: 'ticket 4711: account taken over' };
const messageOf = (body: Record<string, unknown>) => (body.errors as { message: string; extensions: { code: string } }[])[0];

describe('POST /ops/sessions/revoke', () => {
  it('answers only its own path', () => {
    const { keys } = setUp();
    const endpoint = sessionRevokeEndpoint({ revoke: () => Promise.resolve(0), access: () => 'ok', names: keys, log: capturedLog().log, trustProxy: 0 });
    expect(endpoint(new Request('http://gateway.test/ops/sessions'), loopback)).toBeUndefined();
    expect(endpoint(new Request('http://gateway.test/ops/'), loopback)).toBeUndefined();
  });

  it('ends every session of the user and answers how many, with an audit line that names the user only by a keyed hash', async () => {
    const { send, calls, audits, keys } = setUp();
    const answer = await send(VALID);
    expect(answer).toMatchObject({ status: 200, body: { ended: 3 } });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(calls).toEqual([['sandbox', 'taken-over@example.com']]);
    const [line] = audits();
    expect(line).toMatchObject({
      action: 'ops.sessions.revoke', outcome: 'ok', status: 200, path: SESSION_REVOKE_PATH, actor: 'operator', clientAddress: '127.0.0.1',
      environment: 'sandbox', reason: VALID.reason, subject: keys.name('session-user', 'sandbox', VALID.uid), counts: { ended: 3 },
    });
    const text = JSON.stringify(line);
    expect(text).not.toContain('taken-over');
    expect(text).not.toContain(TOKEN);
  });

  it('refuses a request without the token (401), writing an audit line', async () => {
    const { send, calls, audits } = setUp();
    for (const authorization of [null, 'Bearer not-the-token', `Basic ${Buffer.from(`ops:wrong`).toString('base64')}`]) {
      const answer = await send(VALID, { authorization });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(messageOf(answer.body)?.extensions.code).toBe('UNAUTHENTICATED');
    }
    expect(calls).toEqual([]);
    expect(audits().map((line) => [line.action, line.status, line.outcome])).toEqual(Array.from({ length: 3 }, () => ['ops.sessions.revoke', 401, 'UNAUTHENTICATED']));
  });

  it('accepts the token as a Basic password too', async () => {
    const { send } = setUp();
    expect((await send(VALID, { authorization: `Basic ${Buffer.from(`ops:${TOKEN}`).toString('base64')}` })).status).toBe(200);
  });

  it('without OPS_TOKEN, answers loopback clients only (403 to anyone else, proxied requests included)', async () => {
    const { send, calls } = setUp({ withToken: false });
    expect((await send(VALID, { authorization: null, from: remote })).status).toBe(403);
    // A proxy on the same host would make everyone loopback.
    expect((await send(VALID, { authorization: null, headers: { 'x-forwarded-for': '198.51.100.7' } })).status).toBe(403);
    expect((await send(VALID, { authorization: null })).status).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it('is 400 naming each missing or malformed field, and ends nothing', async () => {
    const { send, calls, audits } = setUp();
    const cases: [unknown, string[]][] = [
      [{ uid: VALID.uid, reason: VALID.reason }, ['`environment`']],
      [{ ...VALID, environment: 'staging' }, ['`environment`']],
      [{ ...VALID, environment: 'SANDBOX' }, ['`environment`']],
      [{ environment: 'production', reason: 'x' }, ['`uid`']],
      [{ ...VALID, uid: '  ' }, ['`uid`']],
      [{ ...VALID, reason: '' }, ['`reason`']],
      [{ ...VALID, reason: 'r'.repeat(201) }, ['`reason`']],
      [{ ...VALID, uid: 42, reason: null }, ['`uid`', '`reason`']],
      [{}, ['`environment`', '`uid`', '`reason`']],
      ['not json', ['JSON object']],
      [[VALID], ['JSON object']],
      [JSON.stringify({ ...VALID, padding: 'x'.repeat(5_000) }), ['JSON object']],
    ];
    for (const [body, named] of cases) {
      const answer = await send(body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const error = messageOf(answer.body);
      expect(error?.extensions.code).toBe('BAD_REQUEST');
      for (const name of named) expect(error?.message).toContain(name);
    }
    expect((await send({ ...VALID, reason: 'r'.repeat(200) })).status).toBe(200);
    expect(calls).toHaveLength(1);
    expect(audits().filter((line) => line.status === 400)).toHaveLength(cases.length);
  });

  it('allows POST only (405 with Allow)', async () => {
    const { send, calls } = setUp();
    const answer = await send(undefined, { method: 'GET' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(calls).toEqual([]);
  });

  it('is 503 SESSION_STORE_UNAVAILABLE when the session store cannot be reached', async () => {
    const { send, audits } = setUp({ fails: true });
    const answer = await send(VALID);
    expect(answer.status).toBe(503);
    expect(messageOf(answer.body)?.extensions.code).toBe('SESSION_STORE_UNAVAILABLE');
    expect(audits()[0]).toMatchObject({ outcome: 'SESSION_STORE_UNAVAILABLE', status: 503, reason: VALID.reason });
  });
});
