/** The gateway's named log events written to memory (the real logger, redaction included), for in-process specs. */
import { createLogEvents, type LogEvents } from '../../src/observability/log-events';
import { createLogger } from '../../src/observability/logger';

export interface CapturedLog {
  readonly log: LogEvents;
  /** Every line written so far, parsed. */
  readonly lines: Record<string, unknown>[];
  /** The lines of one event (`audit`, `request.unexpected-error`, ...). */
  events(name: string): Record<string, unknown>[];
}

export function capturedLog(level = 'info'): CapturedLog {
  const lines: Record<string, unknown>[] = [];
  // pino writes each line to the destination synchronously.
  const logger = createLogger({ level, destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { log: createLogEvents(logger), lines, events: (name) => lines.filter((line) => line.event === name) };
}
