/**
 * Scenario 4: `getStatements(otxIds: <20 ids>)` selecting `pdf`, through the counting proxy (our
 * gateway's PRODUCTION upstream is that proxy, so only this scenario pays its hop), which counts
 * the upstream bytes and PDF bytes per request.
 * - Cold: a sequential loop (at most BENCH_PDF_PAGES requests and BENCH_SECONDS) where each
 *   request reads 20 statements the gateway has never read, so none of their PDFs can be cached.
 * - Warm: one priming read of a fixed page, then the same sequential loop on it (the cold/warm
 *   latency comparison), then autocannon on it for throughput.
 */
import { countedDuring, loadOnGateway, type Series } from '../gateway-counters';
import { postJson, sleep } from '../http';
import type { Measured } from '../load';
import type { Row } from '../rows';
import { QUERIES } from '../settings';
import { setLatency, upstreamCounters } from '../targets';
import { graphqlBody, type Scenario } from './context';

const SCENARIO = '4 getStatements(20)+pdf';
const PDF_SERIES: readonly Series[] = ['pdfHit', 'pdfMiss'];

export const pdfs: Scenario = {
  number: 4,
  async run({ targets, loader, rows, fixture, settings }) {
    const { pdfHeaders, pdfPages } = fixture;
    const warmPage = pdfPages[pdfPages.length - 1] ?? [];
    const sendPdf = (ids: readonly string[]) => postJson(`${targets.gateway.url}/graphql`, { query: QUERIES.pdfs, variables: { ids } }, pdfHeaders);
    const resetCounter = () => upstreamCounters(targets.counter, true);
    const upstreamSince = async (measured: Measured): Promise<NonNullable<Row['upstream']>> => {
      const seen = await upstreamCounters(targets.counter, false);
      const served = Math.max(1, measured.ok + measured.failed);
      return { bytesPerRequest: seen.bytes / served, pdfBytesPerRequest: seen.pdfBytes / served, callsPerRequest: seen.responses / served };
    };
    const sequentialOnGateway = (count: number, send: (n: number) => Promise<Response>) =>
      countedDuring(targets.gateway, PDF_SERIES, async (mark) => {
        await resetCounter();
        await mark();
        return loader.sequential(targets.gateway.pid, count, send);
      });
    for (const [index, latencyMs] of settings.latenciesMs.entries()) {
      await setLatency(targets, latencyMs);
      const coldPages = pdfPages.slice(index * settings.pdfPages, (index + 1) * settings.pdfPages);
      const cold = await sequentialOnGateway(coldPages.length, (n) => sendPdf(coldPages[n] ?? []));
      const coldRow = rows.add(SCENARIO, latencyMs, 'cold', 'our gateway, cold (sequential)', cold.measured, `fresh statements per read; ${cold.note}`);
      coldRow.upstream = await upstreamSince(cold.measured);
      // Prime the warm page; the gateway does not wait for its PDF cache write, so let it land.
      await (await sendPdf(warmPage)).text();
      await sleep(300);
      const warm = await sequentialOnGateway(coldPages.length, () => sendPdf(warmPage));
      const warmRow = rows.add(SCENARIO, latencyMs, 'warm-seq', 'our gateway, warm (sequential)', warm.measured, warm.note);
      warmRow.upstream = await upstreamSince(warm.measured);
      warmRow.baseline = coldRow.target;
      warmRow.ratio = warm.measured.requestsPerSecond / cold.measured.requestsPerSecond;
      const warmLoad = await loadOnGateway(loader, targets.gateway, { headers: pdfHeaders, body: graphqlBody(QUERIES.pdfs, { ids: warmPage }) }, PDF_SERIES, resetCounter);
      const loadRow = rows.add(SCENARIO, latencyMs, 'warm', 'our gateway, warm', warmLoad.measured, warmLoad.note);
      loadRow.upstream = await upstreamSince(warmLoad.measured);
    }
  },
};
