/**
 * The per-user index of sessions on a real Redis Cluster (three masters), under two gateways: three
 * browsers of one user listed, one ended from another, then the operators' revoke ending the rest,
 * while MONITOR watches every node. No SCAN or KEYS is ever sent (the index finds the sessions),
 * and everything the revoke sends about the user goes to the one master that holds the user's
 * hash tag: sessions and index share a slot, so every script runs there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexKeyOf } from '../../src/session/session-index';
import { monitorRedis, type RedisMonitor } from '../support/redis-monitor';
import { control } from '../support/emulator';
import { startRedisCluster, type RedisCluster } from '../support/redis-topologies';
import { itLogsNoCrossSlotErrorAndNoRestart, PASSWORD, ProxiedBrowser, useGatewaysOn, GREETING } from '../support/scale-out';

const OPS_TOKEN = 'cluster-revoke-ops-token-0123456789';
const setup = useGatewaysOn<RedisCluster>(() => startRedisCluster({ masters: 3, replicasPerMaster: 0 }), { OPS_TOKEN });
const { gateways, sandbox } = setup;

interface Seen { readonly port: number; readonly args: readonly string[] }
const seen: Seen[] = [];
const monitors: RedisMonitor[] = [];

beforeAll(async () => {
  // MONITOR on every node: each shows the commands that node ran, scripts' own included.
  for (const port of setup.topology.ports) monitors.push(await monitorRedis(port, (args) => seen.push({ port, args })));
}, 30_000);
afterAll(() => {
  for (const monitor of monitors) monitor.close();
});

const scansOrKeys = (from = 0) => seen.slice(from).filter(({ args }) => ['scan', 'keys'].includes(String(args[0]).toLowerCase()));

describe('the sessions of one user on a Redis Cluster', () => {
  it('are listed, ended one by one and revoked all at once, without SCAN or KEYS, on the user\'s one master', async () => {
    const email = `cluster-revoke-${Date.now()}@example.com`;
    expect((await control(sandbox.url, 'POST', '/__emulator/accounts', { email, password: PASSWORD })).status).toBe(201);
    const browsers = await Promise.all([0, 1, 2].map(async (index) => {
      const browser = new ProxiedBrowser(gateways[index % 2]!.url);
      expect((await browser.login(email, PASSWORD)).codes).toEqual([]);
      return browser;
    }));
    const [first, second, third] = browsers as [ProxiedBrowser, ProxiedBrowser, ProxiedBrowser];
    // One hash tag per user: every session of the user, and the index, on one master.
    const masters = new Set(await Promise.all(browsers.map(async (browser) => (await setup.topology.masterForKey(browser.sessionKey)).port)));
    expect(masters.size).toBe(1);
    const index = indexKeyOf(first.sessionKey) ?? '';
    expect((await setup.topology.masterForKey(index)).port).toBe([...masters][0]);

    const listed = (await first.on(gateways[1]!).graphql<{ sessions: { id: string; current: boolean }[] }>('{ sessions { id current } }')).body.data?.sessions ?? [];
    expect(listed).toHaveLength(3);
    const other = listed.find((session) => !session.current)?.id ?? '';
    expect((await first.graphql('mutation($id: ID!) { endSession(id: $id) }', { id: other })).body.data).toEqual({ endSession: true });

    const revokeFrom = seen.length;
    const answer = await fetch(`${gateways[0]!.url}/ops/sessions/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ environment: 'sandbox', uid: email, reason: 'cluster e2e' }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ ended: 2 });
    for (const browser of [first, second, third]) for (const gateway of gateways) expect((await browser.on(gateway).graphql(GREETING)).codes).toEqual(['UNAUTHENTICATED']);

    // What the revoke sent about this user's sessions: on the user's master only (but the
    // invalidations, published to every replica through whichever node the channel hashes to).
    const tag = index.slice('sgw:session:'.length, index.indexOf('}') + 1);
    const aboutUser = seen.slice(revokeFrom).filter(({ args }) => String(args[0]).toLowerCase() !== 'publish' && args.some((arg) => arg.includes(tag)));
    expect(aboutUser.length).toBeGreaterThan(0);
    expect(new Set(aboutUser.map(({ port }) => port))).toEqual(masters);
    expect(scansOrKeys(revokeFrom)).toEqual([]);
  }, 60_000);

  it('never saw SCAN or KEYS on any node, logins and lists included', () => {
    expect(seen.length).toBeGreaterThan(0);
    expect(scansOrKeys()).toEqual([]);
  });

  itLogsNoCrossSlotErrorAndNoRestart(setup);
});
