/**
 * Mesh's and Yoga's log calls, routed into the gateway's JSON logger. Their debug output prints
 * resolver arguments and upstream request bodies verbatim (the sign-in password, statement data),
 * which no redaction path can catch in free text: it is dropped. Other levels are scrubbed of
 * anything that looks like a secret field and truncated.
 */
import type { Logger as MeshLogger } from '@graphql-mesh/types';
import type { Logger } from 'pino';
import { redactSecretFields } from './secret-fields';

const MAX_LENGTH = 500;

export function scrub(text: string): string {
  const cleaned = redactSecretFields(text);
  return cleaned.length > MAX_LENGTH ? `${cleaned.slice(0, MAX_LENGTH)}…` : cleaned;
}

function text(args: unknown[]): string {
  return scrub(
    args
      .map((arg) => (typeof arg === 'function' ? '' : arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : JSON.stringify(arg)))
      .join(' '),
  );
}

export function meshLogger(logger: Logger, name = 'mesh'): MeshLogger {
  const child = logger.child({ component: name });
  return {
    name,
    log: (...args: unknown[]) => child.info({ event: 'mesh.log' }, text(args)),
    info: (...args: unknown[]) => child.info({ event: 'mesh.log' }, text(args)),
    warn: (...args: unknown[]) => child.warn({ event: 'mesh.log' }, text(args)),
    error: (...args: unknown[]) => child.error({ event: 'mesh.log' }, text(args)),
    debug: () => undefined,
    child: (sub: string | Record<string, string | number>) => meshLogger(logger, typeof sub === 'string' ? `${name}.${sub}` : `${name}.${Object.values(sub).join('.')}`),
  };
}
