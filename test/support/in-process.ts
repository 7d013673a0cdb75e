/**
 * A gateway in the test's own process: `startGateway` with the configuration `src/main.ts` would
 * load from these variables, its log and start banner kept as a child process's output would be.
 * Starting one costs no process, no TypeScript compile and no module loading after the first.
 */
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config';
import { startBanner } from '../../src/gateway/banner';
import { startGateway } from '../../src/gateway/server';
import type { ExitStatus } from './launcher';

/** What tests use of a started gateway, in this process or in a child (launcher.ts). */
export interface TestGateway {
  readonly url: string;
  /** With OPS_PORT: where the probes, /metrics and /ops/ are served. */
  readonly opsUrl?: string;
  /** Its log lines and start banner so far. */
  output(): string;
  /** Stops it; 0 once stopped (a child's exit status for a process). */
  stop(): Promise<ExitStatus>;
}

/** One in this process can also be drained as SIGTERM drains a process (SHUTDOWN_DELAY, SHUTDOWN_TIMEOUT). */
export interface InProcessGateway extends TestGateway {
  drain(): Promise<void>;
}

export async function startGatewayInProcess(env: Record<string, string | undefined>): Promise<InProcessGateway> {
  let output = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      output += chunk.toString('utf8');
      done();
    },
  });
  const config = loadConfig({ PORT: '0', ...env });
  const gateway = await startGateway(config, { logDestination: destination });
  // Not `output += startBanner(...)`: that reads `output` before the banner's warnings are logged into it.
  const banner = startBanner(config, gateway);
  output += banner;
  let stopped: Promise<ExitStatus> | undefined;
  return {
    url: gateway.url,
    ...(gateway.opsUrl ? { opsUrl: gateway.opsUrl } : {}),
    output: () => output,
    stop: () => (stopped ??= gateway.close().then(() => 0)),
    drain: () => gateway.drain(),
  };
}
