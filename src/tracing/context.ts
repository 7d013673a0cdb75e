/**
 * The spans of the request a piece of work belongs to, carried by AsyncLocalStorage from the
 * SERVER span (server-span.ts) through Yoga, Mesh and the upstream calls: the upstream client
 * parents its CLIENT spans on them and the logger's mixin reads their ids. Our own storage rather
 * than OpenTelemetry's global context manager: a gateway's tracer provider is its own (several
 * gateways, with and without tracing, run in one test process) and nothing is registered globally;
 * for the same reason, one storage per gateway.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Span } from '@opentelemetry/api';

export interface RequestTrace {
  readonly server: Span;
  /** The GraphQL operation's span while it runs (one operation per request: batching is off). */
  operation?: Span | undefined;
  /** The first contract error code the answer carries, for the SERVER span's status. */
  errorCode?: string | undefined;
}

export interface TraceContexts {
  run<T>(trace: RequestTrace, work: () => T): T;
  current(): RequestTrace | undefined;
  /** The innermost span of the current request: its operation's while it runs, else the SERVER span. */
  currentSpan(): Span | undefined;
  /** `trace_id` and `span_id` (lowercase hex) for a log line of a traced request; a fresh object (pino merges into it). */
  currentTraceIds(): { readonly trace_id?: string; readonly span_id?: string };
}

/** One storage per gateway (created by startGateway, handed to its tracing and its logger). */
export function createTraceContexts(): TraceContexts {
  const storage = new AsyncLocalStorage<RequestTrace>();
  const currentSpan = (): Span | undefined => {
    const trace = storage.getStore();
    return trace ? (trace.operation ?? trace.server) : undefined;
  };
  return {
    run: (trace, work) => storage.run(trace, work),
    current: () => storage.getStore(),
    currentSpan,
    currentTraceIds: () => {
      const span = currentSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
}
