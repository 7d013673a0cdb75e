/**
 * Two gateway replicas on a real Redis Cluster (three masters, a replica each; REDIS_URL and
 * CACHE_REDIS_URL `redis+cluster://`): what one replica writes the other reads, keys spread over
 * the masters, and the master holding the sessions killed with SIGKILL under load is replaced by
 * its replica while the gateways keep running. A login fails closed while a master is lost and
 * works on each replica as soon as its replica took over, before any other request touched it.
 */
import { describe, expect, it } from 'vitest';
import { parseRedisTarget } from '../../src/config/redis-url';
import { createRedisClient, pingRedis, waitForReady } from '../../src/redis';
import { killUnderLoad, expectRecovered, type LoggedIn } from '../support/failover-load';
import { command, waitFor } from '../support/redis-processes';
import { startRedisCluster } from '../support/redis-topologies';
import { itLogsNoCrossSlotErrorAndNoRestart, itSharesStateBetweenReplicas, useGatewaysOn } from '../support/scale-out';

const setup = useGatewaysOn(() => startRedisCluster({ masters: 3, replicasPerMaster: 1 }));
const { gateways } = setup;

describe('two gateways on a Redis Cluster', () => {
  itSharesStateBetweenReplicas(setup);

  it('spreads sessions and the other keys over more than one master', async () => {
    const browsers = await Promise.all(Array.from({ length: 12 }, (_, index) => setup.login(gateways[index % 2]!)));
    const masters = (await setup.topology.nodes()).filter((node) => node.role === 'master');
    const sessionMasters = new Set(await Promise.all(browsers.map(async (browser) => (await setup.topology.masterForKey(browser.sessionKey)).port)));
    expect(sessionMasters.size).toBeGreaterThan(1);
    const keysPerMaster = await Promise.all(masters.map(async (master) => (await command(master.port, 'KEYS', 'sgw:*')) as string[]));
    expect(keysPerMaster.filter((keys) => keys.length > 0).length).toBeGreaterThan(1);
    // Every kind of key the tests above made: sessions, caches, rate limits.
    const kinds = new Set(keysPerMaster.flat().map((key) => key.split(':').slice(0, 2).join(':')));
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['sgw:cache', 'sgw:rate', 'sgw:session']));
  });

  it('serves the same sessions again, without a restart, after the master holding them is killed under load', async () => {
    const cluster = setup.topology;
    // Ten clients whose sessions all live on one master: the one killed.
    const first = await setup.login(gateways[0]!);
    const victim = await cluster.masterForKey(first.sessionKey);
    const onVictim = async (browser: LoggedIn) => (await cluster.masterForKey(browser.sessionKey)).port === victim.port;
    const clients: LoggedIn[] = [first];
    while (clients.length < 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, index) => setup.login(gateways[index % 2]!)));
      for (const browser of batch) if (clients.length < 10 && (await onVictim(browser))) clients.push(browser);
    }
    const replica = (await cluster.nodes()).find((node) => node.masterId === victim.id);
    if (!replica) throw new Error('the victim has no replica');
    let witnesses = 0;
    const witness = async () => {
      for (let attempt = 0; attempt < 30; attempt++) {
        const browser = await setup.login(gateways[witnesses++ % 2]!);
        if (await onVictim(browser)) return browser;
      }
      throw new Error('no session landed on the victim master');
    };

    const report = await killUnderLoad({ clients, witness, kill: () => cluster.kill(victim.port) });
    await expectRecovered('Cluster', report, gateways, setup.login);
    const promoted = await cluster.masterForKey(report.witness.sessionKey);
    expect(promoted.port).toBe(replica.port);
  }, 60_000);

  it('refuses logins while a master is lost, and logs in on each replica right after its replica took over', async () => {
    const cluster = setup.topology;
    // Both gateways have used every master (a login touches keys in several slots).
    await Promise.all(gateways.map((gateway) => setup.login(gateway)));
    const before = await cluster.nodes();
    const victim = before.find((node) => node.role === 'master' && node.slots.length > 0 && before.some((replica) => replica.masterId === node.id && cluster.alive(replica.port)));
    if (!victim) throw new Error('no master with a live replica');
    const replica = before.find((node) => node.masterId === victim.id && cluster.alive(node.port))!;
    const loginCode = (gateway: (typeof gateways)[number]) => setup.login(gateway).then(() => 'ok', (error: Error) => error.message);
    const promoted = async () => (await cluster.nodes()).some((node) => node.port === replica.port && node.role === 'master' && node.slots.length > 0);
    // A client that sends nothing to the lost master's slots: only its store check can see the change.
    const idle = createRedisClient({ target: parseRedisTarget(cluster.url), name: 'failover-idle' });
    expect(await waitForReady(idle, 5_000)).toBe(true);
    await pingRedis(idle);

    await cluster.kill(victim.port);
    // Sessions fail closed: the lost master's slots have no master yet.
    const during = await Promise.all(gateways.map(loginCode));
    if (!(await promoted())) expect(during).toEqual(['login failed: SESSION_STORE_UNAVAILABLE', 'login failed: SESSION_STORE_UNAVAILABLE']);

    const killedAt = performance.now();
    await waitFor(async () => {
      if (!(await promoted())) return false;
      const live = cluster.ports.filter((port) => cluster.alive(port));
      const states = await Promise.all(live.map(async (port) => String(await command(port, 'CLUSTER', 'INFO'))));
      return states.every((info) => /cluster_state:ok/.test(info));
    }, 20_000, () => `${replica.port} not promoted`);
    const promotedMs = performance.now() - killedAt;
    const idlePing = await pingRedis(idle).then(() => 'ok', (error: Error) => error.message);
    idle.disconnect();
    // The very next request on each gateway is a login: nothing else has shown them the new master.
    const after = [];
    for (const gateway of gateways) after.push(await loginCode(gateway));
    console.log(`Cluster failover without load: replica promoted and every node ok ${promotedMs.toFixed(0)} ms after the logins refused during it; first logins after it: ${after.join(', ')}; an idle client's store check: ${idlePing}`);
    expect(after).toEqual(['ok', 'ok']);
    expect(idlePing).toBe('ok');
  }, 40_000);

  itLogsNoCrossSlotErrorAndNoRestart(setup);
});
