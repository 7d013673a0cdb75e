/**
 * Scenario 1: `secretGreeting` passed through, on our gateway and its peers (peers.ts), under
 * autocannon and then with one connection (at most 100 requests) each.
 */
import { QUERIES, TRUSTED_GREETING_ID } from '../settings';
import { setLatency } from '../targets';
import { graphqlBody, type Scenario } from './context';
import { oneConnection, peerRows, relatePeers } from './peers';

const SCENARIO = '1 secretGreeting';

export const passThrough: Scenario = {
  number: 1,
  async run(context) {
    const { targets, loader, rows, fixture, settings } = context;
    const body = graphqlBody(QUERIES.greeting);
    const same = () => body;
    const trusted = JSON.stringify({ documentId: TRUSTED_GREETING_ID() });
    for (const latencyMs of settings.latenciesMs) {
      await setLatency(targets, latencyMs);
      await peerRows(context, SCENARIO, latencyMs, body);
      rows.add(SCENARIO, latencyMs, 'gateway', 'our gateway', await loader.load(targets.gateway.pid, { body, url: `${targets.gateway.url}/graphql`, headers: fixture.cookieHeaders }));
      // The same document sent by its id (TRUSTED_DOCUMENTS_FILE): no text to parse or validate.
      rows.add(SCENARIO, latencyMs, 'gateway-trusted', 'our gateway (trusted document)', await loader.load(targets.gateway.pid, { body: trusted, url: `${targets.gateway.url}/graphql`, headers: fixture.cookieHeaders }));
      const upstream = fixture.upstreamHeaders;
      rows.add(SCENARIO, latencyMs, 'emulator-seq', 'emulator direct (sequential)', await oneConnection(context, targets.sandbox, '/v2/graphql', upstream, same));
      rows.add(SCENARIO, latencyMs, 'raw-seq', 'raw undici proxy (sequential)', await oneConnection(context, targets.raw, '/v2/graphql', upstream, same));
      rows.add(SCENARIO, latencyMs, 'hive-seq', 'Hive Gateway proxy (sequential)', await oneConnection(context, targets.hive, '/graphql', upstream, same));
      rows.add(SCENARIO, latencyMs, 'gateway-seq', 'our gateway (sequential)', await oneConnection(context, targets.gateway, '/graphql', fixture.cookieHeaders, same));
      relatePeers(context, SCENARIO, latencyMs);
    }
  },
};
