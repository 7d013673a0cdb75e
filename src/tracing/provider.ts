/**
 * One gateway's tracer: OpenTelemetry's SDK (a BasicTracerProvider with a BatchSpanProcessor and
 * the OTLP/HTTP exporter, protobuf or JSON) built from the validated OTEL_* configuration, owned by
 * the gateway and never registered globally, so several gateways can run in one process and a
 * gateway without an endpoint loads none of it. Export runs in the batch processor's background:
 * a slow or dead collector drops spans (the queue is bounded), it never holds a request.
 */
import type { Agent } from 'node:http';
import { ROOT_CONTEXT, type Context, type TextMapGetter, type TextMapSetter, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { TracingConfig } from '../config/tracing';
import type { TraceContexts } from './context';

export interface Tracing {
  readonly tracer: Tracer;
  /** The spans of the request the current work belongs to (this gateway's own storage). */
  readonly contexts: TraceContexts;
  /** The incoming W3C trace context (`traceparent`, `tracestate`) as the parent of a SERVER span. */
  extract(headers: Readonly<Record<string, string | string[] | undefined>>): Context;
  /** Writes `traceparent` (and `tracestate`) for this context into outgoing headers. */
  inject(context: Context, headers: Headers): void;
  /** Sends what is queued (bounded: a dead collector cannot hold the shutdown) and stops. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /**
   * The node:http(s) agent the exporter posts with, per protocol (`http:`, `https:`): the egress
   * proxy's (src/upstream/egress.ts). Without it, the exporter's own keep-alive agent.
   */
  readonly agentFor?: (protocol: string) => Promise<Agent>;
}

/** How long the shutdown may wait for the last batch. */
const SHUTDOWN_BOUND_MS = 2_000;

function samplerOf(config: TracingConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case 'always_on': return new AlwaysOnSampler();
    case 'always_off': return new AlwaysOffSampler();
    case 'traceidratio': return ratio;
    case 'parentbased_always_off': return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio': return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on': return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

async function exporterOf(config: TracingConfig, { agentFor }: TracingOptions): Promise<SpanExporter> {
  // The exporter sends with node:http, not undici: an agent is its public way to a proxy.
  const options = { url: config.tracesUrl, headers: { ...config.headers }, ...(agentFor ? { httpAgentOptions: agentFor } : {}) };
  // Loaded only when tracing is on: a gateway without an endpoint pays nothing for the exporters.
  if (config.protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options);
}

const getter: TextMapGetter<Readonly<Record<string, string | string[] | undefined>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key.toLowerCase()],
};
const setter: TextMapSetter<Headers> = { set: (carrier, key, value) => carrier.set(key, value) };

export async function createTracing(config: TracingConfig, contexts: TraceContexts, options: TracingOptions = {}): Promise<Tracing> {
  const provider = new BasicTracerProvider({
    // Only the service and the SDK's own attributes: no host, process or environment detectors
    // (a command line or an environment variable may carry a secret).
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': config.serviceName })),
    sampler: samplerOf(config),
    spanProcessors: [new BatchSpanProcessor(await exporterOf(config, options), { scheduledDelayMillis: config.scheduleDelayMs })],
  });
  const propagator = new W3CTraceContextPropagator();
  let stopped: Promise<void> | undefined;
  return {
    tracer: provider.getTracer('statement-gateway'),
    contexts,
    extract: (headers) => propagator.extract(ROOT_CONTEXT, headers, getter),
    inject: (context, headers) => propagator.inject(context, headers, setter),
    shutdown: () =>
      (stopped ??= Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_BOUND_MS).unref()),
      ])),
  };
}
