/**
 * A dead collector does not slow requests: the exporter runs in the batch processor's background
 * (src/tracing/provider.ts), so a collector that accepts connections and never answers, or one
 * that refuses them, costs a request nothing it would not pay with a live collector. Measured, and
 * printed as one line whose figures can be quoted: the median of `REQUESTS` sequential cookie
 * requests on a gateway with tracing off (whose hot path is on), with a live OTLP receiver, with a
 * hanging collector and with a refusing one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL } from '../support/gateway';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { tracingEnv } from '../support/tracing';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
const upstreamEnv = () => ({ UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY });

const REQUESTS = 40;
/** Requests before the measured ones: the first of a document compile its plan and warm the JIT. */
const WARM_UP = 5;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** The milliseconds of each of `REQUESTS` sequential cookie requests, after `WARM_UP` others. */
async function timeRequests(url: string): Promise<number[]> {
  const browser = new Browser(url);
  expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
  const timings: number[] = [];
  for (let i = 0; i < WARM_UP + REQUESTS; i++) {
    const started = performance.now();
    expect((await browser.graphql('{ secretGreeting { response } }')).codes).toEqual([]);
    if (i >= WARM_UP) timings.push(performance.now() - started);
  }
  return timings;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('a dead collector', () => {
  let silent: Server;
  let live: OtlpReceiver;
  beforeAll(async () => {
    // Accepts connections and never answers: the worst a collector can do.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    live = await startOtlpReceiver();
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
    await live.close();
  });

  it('does not slow requests, whether it hangs or refuses', { timeout: 60_000 }, async () => {
    const hanging = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const refusing = `http://127.0.0.1:${await closedPort()}`;
    const cases = { off: {}, live: tracingEnv(live.url), hanging: tracingEnv(hanging), refusing: tracingEnv(refusing) };
    const medians: Record<string, number> = {};
    for (const [label, env] of Object.entries(cases)) {
      const measured = await startTestGateway({ ...upstreamEnv(), ...env });
      try {
        medians[label] = median(await timeRequests(measured.url));
      } finally {
        await measured.stop();
      }
    }
    const figure = (label: string) => `${label} ${(medians[label] ?? Number.NaN).toFixed(2)}`;
    console.log(`dead collector: median ms per request, n=${REQUESTS} each: ${['off', 'live', 'hanging', 'refusing'].map(figure).join(', ')}`);
    // The live receiver's spans were exported: the traced gateways really traced.
    expect(live.spans.length).toBeGreaterThan(0);
    // Loose on purpose (a shared machine): an exporter in the request's path would cost its 10 s
    // timeout (hanging) or its retries' backoff (refusing), not a few milliseconds.
    const bound = Math.max(medians.off ?? 0, medians.live ?? 0) * 3 + 25;
    expect(medians.hanging).toBeLessThan(bound);
    expect(medians.refusing).toBeLessThan(bound);
  });
});
