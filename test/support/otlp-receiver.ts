/**
 * A real OTLP/HTTP receiver for tests, in the test's own process: a node:http server that decodes
 * the OTLP/JSON the gateway's exporter posts to /v1/traces (OTEL_EXPORTER_OTLP_PROTOCOL=http/json),
 * so tests check what a collector would get, not what a mocked exporter was handed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean | undefined>>;
  /** OTLP's numbers: 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code?: number; readonly message?: string };
  /** The whole span as received (events included), for scans. */
  readonly raw: unknown;
  readonly resource: Readonly<Record<string, string | number | boolean | undefined>>;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  /** Every request body as received (the text), for scans. */
  readonly bodies: string[];
  /** Resolves once `predicate` holds for the spans received, or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

const valueOf = (value: AnyValue | undefined) =>
  value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue)) ?? value?.boolValue ?? value?.doubleValue;
const attributesOf = (list: readonly { key: string; value?: AnyValue }[] | undefined) =>
  Object.fromEntries((list ?? []).map((entry) => [entry.key, valueOf(entry.value)]));

interface ExportRequest {
  resourceSpans?: { resource?: { attributes?: { key: string; value?: AnyValue }[] }; scopeSpans?: { spans?: (Omit<ReceivedSpan, 'attributes' | 'raw' | 'resource'> & { attributes?: { key: string; value?: AnyValue }[] })[] }[] }[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.url !== '/v1/traces' || !String(req.headers['content-type']).includes('json')) {
        res.writeHead(415).end();
        return;
      }
      bodies.push(text);
      const request = JSON.parse(text) as ExportRequest;
      for (const resourceSpans of request.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) spans.push({ ...span, status: span.status ?? {}, attributes: attributesOf(span.attributes), raw: span, resource });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    async waitFor(predicate, timeoutMs = 5_000) {
      const until = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > until) throw new Error(`OTLP receiver: spans never matched (${spans.map((span) => span.name).join(', ')})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return spans;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
