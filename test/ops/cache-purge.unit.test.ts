/**
 * `POST /ops/cache/purge` as a plain handler (src/ops/cache-purge.ts): who may call it, what it
 * refuses before anything is dropped (each bad field named), what it answers and its audit line.
 * What a purge drops, on every replica, is test/cache/cache-purge.test.ts's and test/e2e/cache-purge.test.ts's.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PurgeRequest } from '../../src/cache/purge';
import { createDerivedKeys } from '../../src/derived-keys';
import { createOpsAccess } from '../../src/ops/access';
import { CACHE_PURGE_PATH, cachePurgeEndpoint } from '../../src/ops/cache-purge';
import { capturedLog } from '../support/captured-log';

const TOKEN = 'an-ops-token-of-enough-length-0123';
const loopback = { req: { socket: { remoteAddress: '127.0.0.1' } } };
const remote = { req: { socket: { remoteAddress: '203.0.113.9' } } };

function setUp({ withToken = true, fails = false } = {}) {
  const captured = capturedLog();
  const calls: PurgeRequest[] = [];
  const keys = createDerivedKeys(randomBytes(32));
  const endpoint = cachePurgeEndpoint({
    purge: (request) => {
      calls.push(request);
      return fails ? Promise.reject(new Error('connection lost')) : Promise.resolve({ definitions: 0, statements: 4, pdfs: 2 });
    },
    access: createOpsAccess({ ...(withToken ? { token: TOKEN } : {}), trustProxy: 0 }),
    names: keys,
    log: captured.log,
    trustProxy: 0,
  });
  const send = async (body: unknown, { method = 'POST', authorization = `Bearer ${TOKEN}` as string | null, from = loopback } = {}) => {
    const init: RequestInit = { method, headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) } };
    if (method === 'POST') init.body = typeof body === 'string' ? body : JSON.stringify(body);
    const answer = await endpoint(new Request(`http://gateway.test${CACHE_PURGE_PATH}`, init), from);
    if (!answer) throw new Error('not answered');
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  return { send, calls, audits: () => captured.events('audit'), keys };
}

const IDENTITY = { scope: 'identity', environment: 'sandbox', uid: 'changed-elsewhere@example.com', reason: 'ticket 99: edited in the upstream app' };
const messageOf = (body: Record<string, unknown>) => (body.errors as { message: string; extensions: { code: string } }[])[0];

describe('POST /ops/cache/purge', () => {
  it('answers only its own path', () => {
    const { keys } = setUp();
    const endpoint = cachePurgeEndpoint({ purge: () => Promise.resolve({ definitions: 0, statements: 0, pdfs: 0 }), access: () => 'ok', names: keys, log: capturedLog().log, trustProxy: 0 });
    expect(endpoint(new Request('http://gateway.test/ops/cache'), loopback)).toBeUndefined();
  });

  it('purges and answers the counts, with an audit line that names the user only by a keyed hash', async () => {
    const { send, calls, audits, keys } = setUp();
    expect(await send(IDENTITY)).toEqual({ status: 200, body: { dryRun: false, purged: { definitions: 0, statements: 4, pdfs: 2 } } });
    expect(calls).toEqual([{ scope: 'identity', environment: 'sandbox', uid: IDENTITY.uid, dryRun: false }]);
    const [line] = audits();
    expect(line).toMatchObject({
      action: 'ops.cache.purge', outcome: 'ok', status: 200, actor: 'operator', clientAddress: '127.0.0.1', reason: IDENTITY.reason,
      scope: 'identity', dryRun: false, environment: 'sandbox', subject: keys.name('cache-user', 'sandbox', IDENTITY.uid), counts: { definitions: 0, statements: 4, pdfs: 2 },
    });
    expect(JSON.stringify(line)).not.toContain('changed-elsewhere');
    expect(JSON.stringify(line)).not.toContain(TOKEN);
  });

  it('passes a dry run on, and names the statement of a statement purge by a keyed hash', async () => {
    const { send, calls, audits, keys } = setUp();
    expect((await send({ ...IDENTITY, scope: 'statement', otxId: 'otx-1', dryRun: true })).body).toMatchObject({ dryRun: true });
    expect(calls).toEqual([{ scope: 'statement', environment: 'sandbox', uid: IDENTITY.uid, otxId: 'otx-1', dryRun: true }]);
    expect(audits()[0]).toMatchObject({ dryRun: true, statement: keys.name('cache-statement', 'sandbox', 'otx-1') });
  });

  it('takes definitions and all without an environment (both), or with one', async () => {
    const { send, calls } = setUp();
    expect((await send({ scope: 'definitions', reason: 'r' })).status).toBe(200);
    expect((await send({ scope: 'all', environment: 'production', reason: 'r' })).status).toBe(200);
    expect(calls).toEqual([{ scope: 'definitions', dryRun: false }, { scope: 'all', environment: 'production', dryRun: false }]);
  });

  it.each<[string, unknown, RegExp]>([
    ['no reason', { ...IDENTITY, reason: undefined }, /`reason` must be 1 to 200/],
    ['a reason too long', { ...IDENTITY, reason: 'x'.repeat(201) }, /`reason` must be 1 to 200/],
    ['an unknown scope', { ...IDENTITY, scope: 'everything' }, /`scope` must be/],
    ['identity without a uid', { ...IDENTITY, uid: undefined }, /`uid` must be the upstream uid/],
    ['identity without an environment', { ...IDENTITY, environment: undefined }, /`environment` must be "sandbox" or "production" \(required/],
    ['an unknown environment', { scope: 'all', environment: 'staging', reason: 'r' }, /`environment` must be/],
    ['statement without an otxId', { ...IDENTITY, scope: 'statement' }, /`otxId` must be/],
    ['a uid with the scope definitions', { scope: 'definitions', uid: 'a@b', reason: 'r' }, /`uid` belongs to the scopes identity and statement/],
    ['a dryRun that is not a boolean', { ...IDENTITY, dryRun: 'yes' }, /`dryRun` must be true or false/],
    ['a body that is not an object', '[1]', /the body must be a JSON object/],
  ])('refuses %s (400, naming the field) and drops nothing', async (_, body, message) => {
    const { send, calls, audits } = setUp();
    const answer = await send(body);
    expect(answer.status).toBe(400);
    expect(messageOf(answer.body)?.message).toMatch(message);
    expect(calls).toEqual([]);
    expect(audits()[0]).toMatchObject({ action: 'ops.cache.purge', status: 400, outcome: 'BAD_REQUEST' });
  });

  it('refuses a request without the token (401), another method (405), and without OPS_TOKEN anything but loopback (403)', async () => {
    expect((await setUp().send(IDENTITY, { authorization: null })).status).toBe(401);
    expect((await setUp().send(IDENTITY, { method: 'GET' })).status).toBe(405);
    const open = setUp({ withToken: false });
    expect((await open.send(IDENTITY, { authorization: null, from: remote })).status).toBe(403);
    expect((await open.send(IDENTITY, { authorization: null })).status).toBe(200);
  });

  it('answers 503 when the cache store cannot be reached', async () => {
    const { send, audits } = setUp({ fails: true });
    const answer = await send(IDENTITY);
    expect(answer.status).toBe(503);
    expect(JSON.stringify(answer.body)).not.toContain('connection lost');
    expect(audits()[0]).toMatchObject({ status: 503, outcome: 'CACHE_STORE_UNAVAILABLE' });
  });
});
