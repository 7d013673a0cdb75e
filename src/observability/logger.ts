/**
 * JSON logs on stdout (pino). Secrets are removed by the logger configuration itself, so no call
 * site can leak them by accident: tokens, cookies, passwords, API keys and whole header maps.
 * Every line written while a request is handled carries its `requestId` (request-context.ts).
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { currentTraceIds } from '../tracing/context';
import { currentRequestId } from './request-context';

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

export function createLogger(options: { readonly level: string; readonly destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'statement-gateway' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
      mixin: () => {
        const requestId = currentRequestId();
        // With tracing, the request's trace_id and span_id too (src/tracing/context.ts).
        return requestId === undefined ? currentTraceIds() : { requestId, ...currentTraceIds() };
      },
    },
    options.destination,
  );
}
