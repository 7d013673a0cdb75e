/** Mesh's and Yoga's log calls, routed into the gateway's JSON logger (and so its redaction). */
import type { Logger as MeshLogger } from '@graphql-mesh/types';
import type { Logger } from 'pino';

function text(args: unknown[]): string {
  return args
    .map((arg) => (typeof arg === 'function' ? String((arg as () => unknown)()) : arg instanceof Error ? arg.message : typeof arg === 'string' ? arg : JSON.stringify(arg)))
    .join(' ');
}

export function meshLogger(logger: Logger, name = 'mesh'): MeshLogger {
  const child = logger.child({ component: name });
  return {
    name,
    log: (...args: unknown[]) => child.info({ event: 'mesh.log' }, text(args)),
    info: (...args: unknown[]) => child.info({ event: 'mesh.log' }, text(args)),
    warn: (...args: unknown[]) => child.warn({ event: 'mesh.log' }, text(args)),
    error: (...args: unknown[]) => child.error({ event: 'mesh.log' }, text(args)),
    debug: (...args: unknown[]) => {
      if (child.isLevelEnabled('debug')) child.debug({ event: 'mesh.log' }, text(args));
    },
    child: (sub: string | Record<string, string | number>) => meshLogger(child, typeof sub === 'string' ? `${name}.${sub}` : `${name}.${Object.values(sub).join('.')}`),
  };
}
