/**
 * Scenario 2: `getStatements(first: 50)` without `pdf`, on our gateway and its peers (peers.ts).
 * Our gateway answers repeated reads from its read cache, so it is measured twice: as is ("read
 * cache"), and with an unused variable unique to each request ("uncached"), which changes the read
 * cache's key (it hashes the variables) and so makes every request a miss: the pass-through cost
 * of a read. The uncached reads again from one service account (its Bearer key on every connection,
 * so one identity, as an internal service sends them). With one connection: the emulator, and our
 * gateway uncached.
 */
import { loadOnGateway } from '../gateway-counters';
import { QUERIES } from '../settings';
import { setLatency } from '../targets';
import { graphqlBody, type Scenario } from './context';
import { oneConnection, peerRows, relatePeers } from './peers';

const SCENARIO = '2 getStatements(50)';

export const statements: Scenario = {
  number: 2,
  async run(context) {
    const { targets, loader, rows, fixture, settings } = context;
    const body = graphqlBody(QUERIES.statements);
    const headers = fixture.cookieHeaders;
    for (const latencyMs of settings.latenciesMs) {
      await setLatency(targets, latencyMs);
      await peerRows(context, SCENARIO, latencyMs, body);
      const cached = await loadOnGateway(loader, targets.gateway, { body, headers }, ['readHit', 'readMiss', 'hot']);
      rows.add(SCENARIO, latencyMs, 'gateway', 'our gateway (read cache)', cached.measured, cached.note);
      // A variable the document does not declare: GraphQL ignores it, the read cache's key
      // includes it, so every request misses (the readMiss count in the note confirms it).
      const uncached = (headers: Record<string, string>, prefix: string) =>
        loadOnGateway(loader, targets.gateway, { body, headers, bodyFor: (n) => graphqlBody(QUERIES.statements, { bench: `${prefix}${latencyMs}-${n}` }) }, ['readHit', 'readMiss', 'hot']);
      const cookies = await uncached(headers, '');
      rows.add(SCENARIO, latencyMs, 'gateway-uncached', 'our gateway (uncached)', cookies.measured, cookies.note);
      // The same reads from one internal service: its Bearer key, every connection the one identity.
      const service = await uncached(fixture.serviceHeaders, 'service-');
      rows.add(SCENARIO, latencyMs, 'gateway-service-account', 'our gateway (uncached, service account)', service.measured, service.note);
      rows.add(SCENARIO, latencyMs, 'emulator-seq', 'emulator direct (sequential)', await oneConnection(context, targets.sandbox, '/v2/graphql', fixture.upstreamHeaders, () => body));
      const uncachedSeq = await oneConnection(context, targets.gateway, '/graphql', headers, (n) => graphqlBody(QUERIES.statements, { bench: `seq-${latencyMs}-${n}` }));
      rows.add(SCENARIO, latencyMs, 'gateway-seq', 'our gateway (uncached, sequential)', uncachedSeq);
      relatePeers(context, SCENARIO, latencyMs, ['gateway']);
    }
  },
};
