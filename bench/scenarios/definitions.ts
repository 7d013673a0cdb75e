/**
 * Scenario 3: `statementDefinitions` cache hits on our gateway, against the physical limit of a
 * Redis-backed hit: a raw server that does one Redis GET per request and writes the bytes. The
 * gateway's own Redis entry is `<time>\n<full payload JSON>`, not an HTTP answer, so the raw
 * server serves the gateway's exact answer to the same query, stored under DEFINITIONS_KEY in the
 * bench's database.
 */
import { loadOnGateway } from '../gateway-counters';
import { cleanAnswer, JSON_HEADERS, postJson } from '../http';
import { DEFINITIONS_KEY, QUERIES } from '../settings';
import { setLatency, startRedisGetServer } from '../targets';
import { graphqlBody, type Scenario } from './context';

const SCENARIO = '3 statementDefinitions hit';

export const definitions: Scenario = {
  number: 3,
  async run({ targets, loader, rows, fixture, settings, children, redis }) {
    const answer = await (await postJson(`${targets.gateway.url}/graphql`, { query: QUERIES.definitions }, fixture.cookieHeaders)).text();
    if (!cleanAnswer(answer)) throw new Error(`definitions through the gateway: ${answer.slice(0, 300)}`);
    await redis.set(DEFINITIONS_KEY, answer);
    const redisServer = await startRedisGetServer(children, settings);
    const body = graphqlBody(QUERIES.definitions);
    for (const latencyMs of settings.latenciesMs) {
      await setLatency(targets, latencyMs);
      rows.add(SCENARIO, latencyMs, 'redis', 'raw Redis GET server', await loader.load(redisServer.pid, { body, url: `${redisServer.url}/`, headers: JSON_HEADERS }));
      const hits = await loadOnGateway(loader, targets.gateway, { body, headers: fixture.cookieHeaders }, ['definitionsHit', 'hot']);
      rows.add(SCENARIO, latencyMs, 'gateway', 'our gateway', hits.measured, hits.note);
      rows.relate(SCENARIO, latencyMs, 'gateway', 'redis');
    }
  },
};
