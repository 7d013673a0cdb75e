/**
 * Two gateways in one process (no runtime singleton): each with its own configuration, stores,
 * metrics, log and per-request state, started and stopped independently. In-process:
 * `startGateway` as src/main.ts calls it, against real emulators over HTTP.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { startGateway, type RunningGateway } from '../../src/gateway/server';
import { DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser } from '../support/gateway';

/** A pino destination that keeps the lines it gets. */
function logSink(): { readonly stream: Writable; readonly lines: () => Record<string, unknown>[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, lines: () => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('two gateways in one process', () => {
  const sandbox = useEmulator('sandbox');
  const production = useEmulator('production');
  const logs = { a: logSink(), b: logSink() };
  let a: RunningGateway | undefined;
  let b: RunningGateway | undefined;

  beforeAll(async () => {
    const env = { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url };
    [a, b] = await Promise.all([
      startGateway(loadConfig({ ...env, RATE_LIMIT_SESSION: '1000/1m' }), { logDestination: logs.a.stream }),
      startGateway(loadConfig({ ...env, RATE_LIMIT_SESSION: '2/1m' }), { logDestination: logs.b.stream }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  const running = (gateway: RunningGateway | undefined): RunningGateway => {
    if (!gateway) throw new Error('gateway not started');
    return gateway;
  };

  it('keeps per-request state apart: a request one gateway handled is unknown to the other', async () => {
    const first = running(a);
    const second = running(b);
    // The same Request object through A's whole pipeline only (as its PDF download sends its read).
    const request = new Request('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect((await first.runtime.internalRequests.send(request, {})).status).toBe(200);
    const seen = (gateway: RunningGateway) => {
      const { operations, startedAt, addresses } = gateway.runtime.requestState;
      return { operation: operations.get(request)?.names, started: startedAt.has(request), address: addresses.has(request) };
    };
    expect(seen(first)).toEqual({ operation: '__typename', started: true, address: true });
    expect(seen(second)).toEqual({ operation: undefined, started: false, address: false });
    expect(first.runtime.documents).not.toBe(second.runtime.documents);
  });

  it('keeps sessions, limits, metrics and logs apart, and stops one without the other', async () => {
    const first = running(a);
    const second = running(b);
    expect(first.url).not.toBe(second.url);

    const onA = new Browser(first.url);
    expect((await onA.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).body.data?.login.uid).toBe(DEMO_ACCOUNT.email);
    expect((await onA.graphql('{ session { uid } }')).body.data?.session).toEqual({ uid: DEMO_ACCOUNT.email });

    // A's session cookie means nothing to B: B has stores of its own.
    const onB = new Browser(second.url);
    onB.cookie = onA.cookie;
    expect((await onB.graphql('{ session { uid } }')).body.data?.session).toBeNull();

    // Each has its own configuration: B's session limit (2 root fields a minute) is not A's.
    await onB.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password);
    const query = '{ getStatements(first: 1) { statements { nodes { otxId } } } }';
    expect((await onB.graphql(query)).codes).toEqual([]);
    expect((await onB.graphql(query)).codes).toEqual([]);
    expect((await onB.graphql(query)).codes).toEqual(['RATE_LIMITED']);
    for (let i = 0; i < 3; i++) expect((await onA.graphql(query)).codes).toEqual([]);

    // Metrics and logs per gateway.
    const logins = async (gateway: RunningGateway) => /statement_gateway_sessions_total\{event="login"\} (\d+)/.exec(await (await fetch(`${gateway.url}/metrics`)).text())?.[1];
    expect(await logins(first)).toBe('1');
    expect(await logins(second)).toBe('1');
    const events = (sink: ReturnType<typeof logSink>) => sink.lines().map((line) => line.event);
    expect(events(logs.a).filter((event) => event === 'request.rate-limited')).toHaveLength(0);
    expect(events(logs.b).filter((event) => event === 'request.rate-limited')).toHaveLength(1);
    expect(logs.a.lines().filter((line) => line.event === 'gateway.started').map((line) => line.url)).toEqual([first.url]);

    // Stopping B leaves A serving.
    await second.close();
    await expect(fetch(`${second.url}/healthcheck`)).rejects.toThrow();
    expect((await onA.graphql('{ session { uid } }')).body.data?.session).toEqual({ uid: DEMO_ACCOUNT.email });
  });
});
