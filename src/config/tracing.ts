/**
 * OpenTelemetry's own variables (OTEL_*), read with their standard meaning and validated with the
 * rest of the configuration, so a typo stops the start instead of silently exporting nothing.
 * Without an endpoint there is no tracing at all (no SDK, no exporter, no cost). The headers may
 * hold a collector's API key: messages never repeat a value.
 */
import { z } from 'zod';
import { url } from './fields';

export const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

export interface TracingConfig {
  /** Where spans are posted: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly tracesUrl: string;
  readonly protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_HEADERS (`name=value,...`, URL-encoded values): a collector's credentials. */
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly sampler: SamplerName;
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the `traceidratio` samplers (default 1). */
  readonly samplerRatio: number;
  /** OTEL_BSP_SCHEDULE_DELAY: how long spans wait to be sent in a batch. */
  readonly scheduleDelayMs: number;
}

const endpoint = url(['http:', 'https:'], 'http://otel-collector:4318');

export const TRACING_FIELDS = {
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint.optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json'], { message: 'expected http/protobuf (the default) or http/json' }).default('http/protobuf'),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      const headers: Record<string, string> = {};
      for (const pair of (text ?? '').split(',').filter((entry) => entry.trim())) {
        const at = pair.indexOf('=');
        const name = at > 0 ? pair.slice(0, at).trim().toLowerCase() : '';
        if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
          ctx.addIssue({ code: 'custom', message: 'expected name=value pairs separated by commas' });
          return z.NEVER;
        }
        try {
          headers[name] = decodeURIComponent(pair.slice(at + 1).trim());
        } catch {
          ctx.addIssue({ code: 'custom', message: `the value of ${name} is not URL-encoded text` });
          return z.NEVER;
        }
      }
      return headers;
    }),
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(128).default('statement-gateway'),
  OTEL_TRACES_SAMPLER: z.enum(SAMPLERS, { message: `expected one of ${SAMPLERS.join(', ')}` }).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number({ message: 'expected a number from 0 to 1' }).min(0).max(1).default(1),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number({ message: 'expected milliseconds' }).int().min(0).max(600_000).default(5_000),
};

type TracingInput = z.output<z.ZodObject<typeof TRACING_FIELDS>>;

/** The tracing configuration, or undefined when no endpoint is set (tracing off). */
export function tracingConfig(e: TracingInput): TracingConfig | undefined {
  const tracesUrl = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT ? `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!tracesUrl) return undefined;
  return {
    tracesUrl,
    protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL,
    headers: e.OTEL_EXPORTER_OTLP_HEADERS,
    serviceName: e.OTEL_SERVICE_NAME,
    sampler: e.OTEL_TRACES_SAMPLER,
    samplerRatio: e.OTEL_TRACES_SAMPLER_ARG,
    scheduleDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
  };
}
