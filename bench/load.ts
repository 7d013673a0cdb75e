/**
 * Load on one target, measured: autocannon's programmatic API for throughput, a sequential loop
 * for the latency of one request without queueing. Latency percentiles are computed here from
 * autocannon's per-response times, which have sub-millisecond resolution, unlike its own 1 ms
 * histogram. RSS is the target process's maximum during the run, CPU its CPU time per answer.
 */
import { performance } from 'node:perf_hooks';
import autocannon, { type AutocannonOptions, type AutocannonRequest, type Instance } from 'autocannon';
import { cleanAnswer, loopbackOnly, sleep } from './http';
import { watched, type ProcessSample } from './sampling';
import type { Settings } from './settings';

export interface Measured {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly ok: number;
  readonly failed: number;
  readonly rssMiB: number;
  readonly cpuMsPerRequest: number;
  readonly connections: number;
  readonly seconds: number;
}

export interface LoadSpec {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body: string;
  /** A different body per request (the n-th request of the run). */
  readonly bodyFor?: (n: number) => string;
  readonly verify?: (body: string) => boolean;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** One request first: a misconfigured target fails the bench loudly instead of measuring errors. */
async function probe(spec: LoadSpec): Promise<void> {
  const response = await fetch(loopbackOnly(spec.url), {
    method: spec.method ?? 'POST',
    headers: spec.headers,
    body: spec.bodyFor ? spec.bodyFor(-1) : spec.body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok || !(spec.verify ?? cleanAnswer)(text)) throw new Error(`probe of ${spec.url} failed: ${response.status} ${text.slice(0, 300)}`);
}

export class Loader {
  /** The autocannon run in progress, stopped if the bench is interrupted. */
  private current: Instance | undefined;

  constructor(
    private readonly settings: Settings,
    private readonly clockTicks: number,
  ) {}

  stop(): void {
    this.current?.stop();
  }

  /** autocannon on `spec` (a warm-up run, then the measured one), sampling the process `pid`. */
  async load(pid: number, spec: LoadSpec, beforeMain?: () => Promise<unknown>): Promise<Measured> {
    await probe(spec);
    // One counter over the warm-up and the measured run: `bodyFor` never repeats a body.
    let counter = 0;
    const bodyFor = spec.bodyFor;
    const requests: AutocannonRequest[] | undefined = bodyFor ? [{ setupRequest: (request) => ({ ...request, body: bodyFor(counter++) }) }] : undefined;
    const options = (duration: number): AutocannonOptions => ({
      url: loopbackOnly(spec.url),
      method: spec.method ?? 'POST',
      headers: spec.headers,
      body: spec.body,
      connections: this.settings.connections,
      duration,
      timeout: 10,
      verifyBody: spec.verify ?? cleanAnswer,
      ...(requests ? { requests } : {}),
    });
    const run = async (duration: number, latencies?: number[]) => {
      const instance = autocannon(options(duration));
      this.current = instance;
      if (latencies) {
        instance.on('response', (_client, statusCode, _bytes, responseTime) => {
          const status = Number(statusCode);
          if (status >= 200 && status < 300) latencies.push(responseTime);
        });
      }
      try {
        return await instance;
      } finally {
        this.current = undefined;
      }
    };
    // The warm-up is a run of its own, outside the RSS, CPU and upstream-byte accounting.
    await run(this.settings.warmupSeconds);
    await beforeMain?.();
    const latencies: number[] = [];
    const { value: result, sample } = await watched(pid, () => run(this.settings.seconds, latencies));
    const ok = Math.max(0, result['2xx'] - result.mismatches);
    const failed = result.non2xx + result.errors + result.timeouts + result.mismatches;
    return this.measured(latencies, ok, failed, sample, this.settings.connections, result.duration);
  }

  /** A bounded sequential loop (one connection): at most `count` requests and BENCH_SECONDS. */
  async sequential(pid: number, count: number, send: (n: number) => Promise<Response>): Promise<Measured> {
    const times: number[] = [];
    await sleep(200); // let the previous load's sockets and timers settle
    let failed = 0;
    const deadline = performance.now() + this.settings.seconds * 1000;
    const { sample, elapsedS } = await watched(pid, async () => {
      for (let n = 0; n < count && performance.now() < deadline; n++) {
        const began = performance.now();
        const response = await send(n);
        const text = await response.text();
        const took = performance.now() - began;
        if (response.ok && cleanAnswer(text)) times.push(took);
        else failed++;
      }
    });
    return this.measured(times, times.length, failed, sample, 1, elapsedS);
  }

  private measured(latencies: readonly number[], ok: number, failed: number, sample: ProcessSample, connections: number, seconds: number): Measured {
    const sorted = Float64Array.from(latencies).sort();
    const served = ok + failed;
    return {
      requestsPerSecond: ok / seconds,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      ok,
      failed,
      rssMiB: sample.rssMaxMiB,
      cpuMsPerRequest: served > 0 ? ((sample.cpuTicks / this.clockTicks) * 1000) / served : Number.NaN,
      connections,
      seconds,
    };
  }
}
