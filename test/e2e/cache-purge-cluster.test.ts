/**
 * Cache purges on a real Redis Cluster (three masters) under two gateways, while MONITOR watches
 * every node: each scope, dry run and real, finds what it drops through the caches' own indexes and
 * generations, never SCAN or KEYS (which a Cluster would have to run on every master), and the
 * `all` scope finds every identity's entries of the environment through its group index.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seed } from '../support/emulator';
import { monitorRedis, type RedisMonitor } from '../support/redis-monitor';
import { startRedisCluster, type RedisCluster } from '../support/redis-topologies';
import { itLogsNoCrossSlotErrorAndNoRestart, useGatewaysOn } from '../support/scale-out';

const OPS_TOKEN = 'cluster-purge-ops-token-0123456789';
const setup = useGatewaysOn<RedisCluster>(() => startRedisCluster({ masters: 3, replicasPerMaster: 0 }), { OPS_TOKEN });
const { gateways, sandbox } = setup;

const monitors: RedisMonitor[] = [];
/** What every node ran so far. */
const seen = () => monitors.flatMap((monitor) => monitor.commands);

beforeAll(async () => {
  for (const port of setup.topology.ports) monitors.push(await monitorRedis(port));
}, 30_000);
afterAll(() => {
  for (const monitor of monitors) monitor.close();
});

const scansOrKeys = () => seen().filter((args) => ['scan', 'keys'].includes(String(args[0]).toLowerCase()));
const READ = '{ getStatements { statements { nodes { otxId recipientCity } } } }';
const PDFS = '{ getStatements { statements { nodes { otxId pdf } } } }';
const DEFINITIONS = '{ statementDefinitions { definitions { identifier } } }';

async function purge(body: Record<string, unknown>) {
  const response = await fetch(`${gateways[1]!.url}/ops/cache/purge`, {
    method: 'POST', headers: { authorization: `Bearer ${OPS_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ reason: 'cluster e2e', ...body }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { purged: Record<string, number> }).purged;
}

describe('cache purges on a Redis Cluster', () => {
  it('drop what each scope names, counted alike by a dry run, without SCAN or KEYS on any node', async () => {
    // Three users, so that the environment's entries spread over the masters.
    const users = await Promise.all([0, 1, 2].map(async (index) => {
      const browser = await setup.login(gateways[index % 2]!);
      const statements = await seed(sandbox.url, browser.email, 'F1099nec', 2);
      return { browser, statements };
    }));
    const warm = async () => {
      for (const { browser } of users) for (const query of [READ, PDFS, DEFINITIONS]) expect((await browser.graphql(query)).codes).toEqual([]);
      // The writes go after the answers.
      await new Promise((resolve) => setTimeout(resolve, 100));
    };
    await warm();
    const [first] = users;
    const scope = { environment: 'sandbox', uid: first!.browser.email };

    const statement = { ...scope, scope: 'statement', otxId: first!.statements[0]!.otxId };
    await expect.poll(() => purge({ ...statement, dryRun: true }), { timeout: 5_000, interval: 100 }).toEqual({ definitions: 0, statements: 1, pdfs: 1 });
    expect(await purge(statement)).toEqual({ definitions: 0, statements: 1, pdfs: 1 });
    expect(await purge({ ...scope, scope: 'identity', dryRun: true })).toEqual({ definitions: 0, statements: 0, pdfs: 1 });
    expect(await purge({ ...scope, scope: 'identity' })).toEqual({ definitions: 0, statements: 0, pdfs: 1 });
    await expect.poll(() => purge({ scope: 'definitions', dryRun: true }), { timeout: 5_000, interval: 100 }).toEqual({ definitions: 1, statements: 0, pdfs: 0 });
    expect(await purge({ scope: 'definitions' })).toEqual({ definitions: 1, statements: 0, pdfs: 0 });

    await warm();
    // Every user's statement read (a read selecting `pdf` asks the upstream each time) and PDFs, and the definitions.
    const everything = { definitions: 1, statements: 3, pdfs: 6 };
    // The caches write after their answers: on a loaded machine some writes land after warm()'s
    // pause (a CI run once counted no definitions here). A dry run changes nothing: asked until all are in.
    await expect.poll(() => purge({ scope: 'all', environment: 'sandbox', dryRun: true }), { timeout: 5_000, interval: 100 }).toEqual(everything);
    expect(await purge({ scope: 'all' })).toEqual(everything);
    expect(await purge({ scope: 'all', dryRun: true })).toEqual({ definitions: 0, statements: 0, pdfs: 0 });

    expect(seen().length).toBeGreaterThan(0);
    expect(scansOrKeys()).toEqual([]);
  }, 60_000);

  itLogsNoCrossSlotErrorAndNoRestart(setup);
});
