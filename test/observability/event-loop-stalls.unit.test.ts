import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { watchEventLoopStalls } from '../../src/observability/event-loop-stalls';

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** Busy-waits: the event loop is held, as a runaway document walk would hold it. */
function holdEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning on purpose
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One sample of the histogram, from the exposition text /metrics serves. */
async function sample(registry: Registry, suffix: string): Promise<number> {
  const line = (await registry.metrics()).split('\n').find((candidate) => candidate.startsWith(`statement_gateway_event_loop_max_delay_seconds${suffix} `));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

/** Observations over 1 s (the EventLoopBlocked alert's expression): the count minus the `le="1"` bucket. */
async function stallsOverOneSecond(registry: Registry): Promise<number> {
  return (await sample(registry, '_count')) - (await sample(registry, '_bucket{le="1"}'));
}

describe('the event-loop stall histogram', () => {
  it('records a stall of over a second once, and keeps it through any number of collects', async () => {
    const registry = new Registry();
    stops.push(watchEventLoopStalls(registry, 100));
    await sleep(250);
    expect(await stallsOverOneSecond(registry)).toBe(0);

    holdEventLoop(1_200);
    await sleep(250);
    // Read as /ops/data and a second Prometheus would, one after the other: a collect resets
    // prom-client's own nodejs_eventloop_lag_max_seconds, never this histogram.
    expect(await stallsOverOneSecond(registry)).toBe(1);
    expect(await stallsOverOneSecond(registry)).toBe(1);
    await sleep(250);
    expect(await stallsOverOneSecond(registry)).toBe(1);
  });

  it('observes every interval, short delays under the first buckets', async () => {
    const registry = new Registry();
    stops.push(watchEventLoopStalls(registry, 50));
    await sleep(400);
    expect(await sample(registry, '_count')).toBeGreaterThanOrEqual(4);
    expect(await stallsOverOneSecond(registry)).toBe(0);
  });
});
