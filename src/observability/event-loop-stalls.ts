/**
 * `statement_gateway_event_loop_max_delay_seconds`: each second's longest event-loop delay, as a
 * histogram that no scrape resets.
 *
 * prom-client's default `nodejs_eventloop_lag_max_seconds` is the max since the last *collect*, and
 * every collect resets it: `/ops/data` collects every 2 s while the page is open, and a second
 * Prometheus collects too, so a one-off stall read by one of them is gone for the others, and an
 * alert on that gauge misses it. Here each second's max is observed once into a histogram, whose
 * buckets only grow: any number of readers see every stall (the EventLoopBlocked alert).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Histogram, type Registry } from 'prom-client';

/** Seconds; the alert reads the `le="1"` bucket. */
const BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Starts watching; the returned function stops it. The timer is unref'd: it never holds the process. */
export function watchEventLoopStalls(registry: Registry, intervalMs = 1_000): () => void {
  const delays = new Histogram({
    name: 'statement_gateway_event_loop_max_delay_seconds',
    help: 'The longest event-loop delay of each second (a stall of several seconds is one observation, at its length). Never reset by a scrape.',
    buckets: BUCKETS,
    registers: [registry],
  });
  const monitor = monitorEventLoopDelay({ resolution: 10 });
  monitor.enable();
  const timer = setInterval(() => {
    // A stall delays this timer as well: the histogram's max then holds the stall's length.
    if (monitor.count > 0) delays.observe(monitor.max / 1e9);
    monitor.reset();
  }, intervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    monitor.disable();
  };
}
