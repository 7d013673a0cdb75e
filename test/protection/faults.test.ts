/**
 * Faults: a Redis killed under a mixed load of 20 clients and started again, and an upstream that
 * answers garbage, hangs or drops the connection. No request hangs, nothing leaks, nothing
 * written before a fault is lost, and the gateway works again afterwards without a restart.
 */
import { describe, expect, it } from 'vitest';
import { signedInUser } from '../support/cache';
import { DEMO_ACCOUNT } from '../support/emulator';
import { Browser, useGatewayBehindRecordingProxy, useGatewayOnOwnRedis } from '../support/gateway';
import type { Fault } from '../support/recording-proxy';
import { ADD_NEC, VALID_NEC } from '../support/statements';
import { timed } from '../support/timing';

const GREETING = '{ secretGreeting { response } }';
const READ = '{ getStatements { statements { nodes { otxId uploaderId } } } }';
const READ_PDF = '{ getStatements(first: 2) { statements { nodes { otxId pdf } } } }';

describe('an upstream that fails in every way', () => {
  const setup = useGatewayBehindRecordingProxy({ UPSTREAM_TIMEOUT_MS: '1500' });
  const { gateway, sandbox } = setup;

  const faults: [string, Fault, string][] = [
    ['a 500 with an HTML body', { status: 500, contentType: 'text/html', body: '<html><body><h1>Internal Server Error</h1><pre>at /srv/app/graphql.rb:12</pre></body></html>' }, 'UPSTREAM_UNAVAILABLE'],
    ['a 502 from its proxy', { status: 502, contentType: 'text/html', body: '<html>Bad Gateway nginx</html>' }, 'UPSTREAM_UNAVAILABLE'],
    ['a 200 with malformed JSON', { status: 200, contentType: 'application/json', body: '{"data": {"secretGreeting": {"resp' }, 'UPSTREAM_ERROR'],
    ['a 200 with an HTML page', { status: 200, contentType: 'text/html', body: '<html>Down for maintenance</html>' }, 'UPSTREAM_ERROR'],
    ['a 200 with JSON of another shape', { status: 200, contentType: 'application/json', body: '[1, 2, 3]' }, 'UPSTREAM_ERROR'],
    ['a hang past UPSTREAM_TIMEOUT_MS', 'hang', 'UPSTREAM_UNAVAILABLE'],
    ['a dropped connection', 'drop', 'UPSTREAM_UNAVAILABLE'],
  ];

  it.each(faults)('answers %s with its code within the timeout, and nothing of it', async (_name, fault, code) => {
    const browser = new Browser(gateway.current.url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const proxy = setup.proxy;
    proxy.fault = fault;
    try {
      const { value, ms } = await timed(() => browser.graphql(GREETING));
      expect(value.codes).toEqual([code]);
      expect(value.status).toBe(code === 'UPSTREAM_ERROR' ? 502 : 503);
      expect(ms).toBeLessThan(1500 + 1000);
      const text = JSON.stringify(value.body);
      for (const leak of ['html', 'nginx', '/srv/', 'resp', sandbox.url.replace('http://', ''), proxy.url.replace('http://', '')]) expect(text).not.toContain(leak);
    } finally {
      proxy.fault = undefined;
    }
    expect((await browser.graphql(GREETING)).codes).toEqual([]);
  });
});

describe('a Redis killed under load', () => {
  const setup = useGatewayOnOwnRedis();
  const { sandbox, gateway } = setup;

  it('fails sessions closed and caches open while it is down, hangs nothing, loses nothing, and recovers without a restart', async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => signedInUser(gateway.current.url, sandbox.url, { count: 3 })));
    // Written before the fault, through the gateway.
    const added = await users[0]!.browser.graphql(ADD_NEC, { s: [{ ...VALID_NEC, uploaderId: 'before-the-fault' }] });
    expect(added.codes).toEqual([]);

    const codes = new Map<string, number>();
    let slowest = 0;
    let stop = false;
    const load = Promise.all(users.map(async (user, index) => {
      for (let round = 0; !stop; round++) {
        const document = [READ, READ_PDF, GREETING, '{ statementDefinitions { definitions { identifier } } }'][(index + round) % 4] ?? READ;
        const { value, ms } = await timed(() => user.browser.graphql(document));
        slowest = Math.max(slowest, ms);
        for (const code of value.codes.length ? value.codes : ['ok']) codes.set(code, (codes.get(code) ?? 0) + 1);
      }
    }));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await setup.redis.stop();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const duringOutage = new Map(codes);
    await setup.redis.start();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    stop = true;
    await load;

    // Sessions failed closed while Redis was away; nothing else went wrong, and nothing hung.
    expect([...duringOutage.keys()].sort()).toEqual(['SESSION_STORE_UNAVAILABLE', 'ok']);
    expect([...codes.keys()].every((code) => ['ok', 'SESSION_STORE_UNAVAILABLE', 'UNAUTHENTICATED'].includes(code))).toBe(true);
    expect(slowest).toBeLessThan(3_000);

    // The restarted Redis lost its sessions: a new login works, and the statement written before
    // the fault is there (the caches serve nothing stale).
    const again = new Browser(gateway.current.url);
    expect((await again.login(users[0]!.email, 'a-long-enough-password-123')).codes).toEqual([]);
    const read = await again.graphql('{ getStatements(uploaderIds: ["before-the-fault"]) { statements { nodes { uploaderId } } } }');
    expect(read.body.data?.getStatements.statements.nodes).toEqual([{ uploaderId: 'before-the-fault' }]);
    const readiness = await fetch(`${gateway.current.url}/readiness`);
    expect(readiness.status).toBe(200);
  });
});
