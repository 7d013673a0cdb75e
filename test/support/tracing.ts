/**
 * What the tracing specs share: a caller's W3C context, a gateway's tracing variables, a trace's
 * spans as the OTLP receiver (otlp-receiver.ts) got them, and what the emulator's request log says
 * reached the upstream. Checks that one trace continues the caller's and reaches the upstream.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { control, signIn } from './emulator';
import { SPAN_KIND, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';

/** A gateway's variables for OTLP/JSON to `endpoint`, batches sent every 20 ms. */
export const tracingEnv = (endpoint: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '20' });

export interface CallerContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceparent: string;
}

/** A caller's W3C context: a fresh trace id and span id, sampled. */
export function callerContext(): CallerContext {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/**
 * `{ secretGreeting }` through the drop-in front at `gatewayUrl` (/v2/graphql) in the caller's
 * trace, with a credential signed in at `signInUrl` (the front itself, or the upstream directly
 * for a credential the gateway has never seen).
 */
export async function frontGreeting(gatewayUrl: string, signInUrl: string, caller: CallerContext): Promise<Response> {
  const credential = await signIn(signInUrl);
  return fetch(`${gatewayUrl}/v2/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...credential, traceparent: caller.traceparent },
    body: JSON.stringify({ query: '{ secretGreeting { response } }' }),
  });
}

/**
 * Waits for the trace's SERVER span (ended last, unless work outlives the answer) and for
 * `more` if given, and returns the trace's spans.
 */
export async function spansOf(receiver: OtlpReceiver, traceId: string, more: (spans: readonly ReceivedSpan[]) => boolean = () => true): Promise<ReceivedSpan[]> {
  const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
  await receiver.waitFor((spans) => inTrace(spans).some((span) => span.kind === SPAN_KIND.server) && more(inTrace(spans)));
  return inTrace(receiver.spans);
}

export interface UpstreamRequest {
  readonly path: string;
  readonly operations: readonly string[];
  readonly traceparent: string | null;
}

/** What the upstream logged with this trace id in its `traceparent`. */
export async function upstreamRequestsOf(url: string, traceId: string): Promise<UpstreamRequest[]> {
  const log = await control<UpstreamRequest[]>(url, 'GET', '/__emulator/requests');
  return log.body.filter((entry) => entry.traceparent?.includes(traceId));
}

/** The parent span id a `traceparent` names. */
export const spanIdOf = (traceparent: string | null) => traceparent?.split('-')[2];

/**
 * The trace's SERVER span continues the caller's; every CLIENT span (POST, answered 200)
 * descends from a span of the trace, and the upstream got exactly those spans' ids.
 */
export async function expectContinued(spans: readonly ReceivedSpan[], caller: Pick<CallerContext, 'traceId' | 'spanId'>, upstreamUrl: string): Promise<void> {
  const server = spans.find((span) => span.kind === SPAN_KIND.server);
  expect(server?.parentSpanId).toBe(caller.spanId);
  const ids = new Set(spans.map((span) => span.spanId));
  const clients = spans.filter((span) => span.kind === SPAN_KIND.client);
  expect(clients.length).toBeGreaterThan(0);
  for (const client of clients) {
    expect(ids.has(client.parentSpanId ?? '')).toBe(true);
    expect(client.attributes['server.address']).toBe('127.0.0.1');
    expect(client.attributes['http.request.method']).toBe('POST');
    expect(client.attributes['http.response.status_code']).toBe(200);
  }
  const sent = await upstreamRequestsOf(upstreamUrl, caller.traceId);
  expect(sent.map((entry) => spanIdOf(entry.traceparent)).sort()).toEqual(clients.map((span) => span.spanId).sort());
}
