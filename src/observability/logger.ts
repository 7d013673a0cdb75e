/**
 * JSON logs on stdout (pino). Secrets are removed by the logger configuration itself, so no call
 * site can leak them by accident: tokens, cookies, passwords, API keys and whole header maps.
 * Every line written while a request is handled carries its `requestId` (request-context.ts), read
 * from the gateway's own storage.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { TraceContexts } from '../tracing/context';
import type { RequestContexts } from './request-context';

export const REDACTED_PATHS = [
  'password', '*.password',
  'accessToken', '*.accessToken', 'access-token', '*["access-token"]',
  'credential', '*.credential', 'sealed', '*.sealed',
  'cookie', '*.cookie', 'setCookie', '*.setCookie',
  'authorization', '*.authorization',
  'apiKey', '*.apiKey', 'token', '*.token',
  'sessionId', '*.sessionId',
  'headers', '*.headers',
  'req.headers', 'res.headers',
];

export interface LoggerOptions {
  readonly level: string;
  readonly destination?: DestinationStream;
  /** The gateway's request ids, for every line written while a request is handled. */
  readonly requests?: RequestContexts;
  /** The gateway's trace contexts, with tracing (src/tracing/context.ts). */
  readonly traces?: TraceContexts;
}

export function createLogger(options: LoggerOptions): Logger {
  const { requests, traces } = options;
  return pino(
    {
      level: options.level,
      base: { service: 'statement-gateway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
      mixin: () => {
        const requestId = requests?.currentRequestId();
        // With tracing, the request's trace_id and span_id too (src/tracing/context.ts).
        const traceIds = traces?.currentTraceIds() ?? {};
        return requestId === undefined ? traceIds : { requestId, ...traceIds };
      },
    },
    options.destination,
  );
}
