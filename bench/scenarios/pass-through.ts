/**
 * Scenario 1: `secretGreeting` passed through, on our gateway and its peers (peers.ts), under
 * autocannon and then with one connection (at most 100 requests) each.
 */
import { loadOnGateway } from '../gateway-counters';
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
      // The notes count the answers the hot path gave (src/hot-path/hot-path.ts).
      const text = await loadOnGateway(loader, targets.gateway, { body, headers: fixture.cookieHeaders }, ['hot']);
      rows.add(SCENARIO, latencyMs, 'gateway', 'our gateway', text.measured, text.note);
      // The same document sent by its id (TRUSTED_DOCUMENTS_FILE): no text to parse or validate.
      const byId = await loadOnGateway(loader, targets.gateway, { body: trusted, headers: fixture.cookieHeaders }, ['hot']);
      rows.add(SCENARIO, latencyMs, 'gateway-trusted', 'our gateway (trusted document)', byId.measured, byId.note);
      const upstream = fixture.upstreamHeaders;
      rows.add(SCENARIO, latencyMs, 'emulator-seq', 'emulator direct (sequential)', await oneConnection(context, targets.sandbox, '/v2/graphql', upstream, same));
      rows.add(SCENARIO, latencyMs, 'raw-seq', 'raw undici proxy (sequential)', await oneConnection(context, targets.raw, '/v2/graphql', upstream, same));
      rows.add(SCENARIO, latencyMs, 'hive-seq', 'Hive Gateway proxy (sequential)', await oneConnection(context, targets.hive, '/graphql', upstream, same));
      rows.add(SCENARIO, latencyMs, 'gateway-seq', 'our gateway (sequential)', await oneConnection(context, targets.gateway, '/graphql', fixture.cookieHeaders, same));
      relatePeers(context, SCENARIO, latencyMs);
    }
  },
};
