/**
 * Two gateway replicas on a real Sentinel group (a master, a replica, three sentinels; REDIS_URL
 * and CACHE_REDIS_URL `redis+sentinel://.../mymaster`): what one replica writes the other reads,
 * and the master killed with SIGKILL under load is replaced by the replica the sentinels promote
 * while the gateways keep running.
 */
import { describe, expect, it } from 'vitest';
import { expectRecovered, killUnderLoad } from '../support/failover-load';
import { startRedisSentinel } from '../support/redis-topologies';
import { itLogsNoCrossSlotErrorAndNoRestart, itSharesStateBetweenReplicas, useGatewaysOn } from '../support/scale-out';

const setup = useGatewaysOn(() => startRedisSentinel());
const { gateways } = setup;

describe('two gateways on a Redis Sentinel group', () => {
  itSharesStateBetweenReplicas(setup);

  it('serves the same sessions again, without a restart, after the master is killed under load', async () => {
    const group = setup.topology;
    const clients = await Promise.all(Array.from({ length: 10 }, (_, index) => setup.login(gateways[index % 2]!)));
    let witnesses = 0;
    const before = await group.master();

    const report = await killUnderLoad({ clients, witness: () => setup.login(gateways[witnesses++ % 2]!), kill: async () => void (await group.killMaster()) });
    try {
      await expectRecovered('Sentinel', report, gateways, setup.login);
    } catch (error) {
      // What the sentinels and the gateways saw, for a failover that did not come back.
      const master = await group.master().catch((cause: unknown) => String(cause));
      const stores = gateways.map((gateway) => gateway.output().split('\n').filter((line) => /"event":"store\./.test(line)).slice(-6).join('\n'));
      console.log(`Sentinel failover not recovered; the sentinels name ${JSON.stringify(master)} (was ${before.port})\n${group.logs(40)}\n--- gateways' store events\n${stores.join('\n---\n')}`);
      throw error;
    }
    expect((await group.master()).port).not.toBe(before.port);
  }, 60_000);

  itLogsNoCrossSlotErrorAndNoRestart(setup);
});
