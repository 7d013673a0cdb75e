/**
 * The processes one bench run started. Every one is registered as soon as it exists, so that it is
 * stopped at the end, on an error and on SIGINT/SIGTERM, and killed if the bench itself exits.
 */
import type { ChildProcess } from 'node:child_process';
import { launch, stopProcess, type Launched, type LaunchOptions } from '../test/support/launcher';

type Stream = 'stdout' | 'stderr';

/** Passes a process's output on, line by line, prefixed with its name. */
function prefixLines(name: string, sink: NodeJS.WriteStream): (chunk: string) => void {
  let rest = '';
  return (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) sink.write(`[${name}] ${line}\n`);
  };
}

export type Tracking = Pick<LaunchOptions, 'onSpawn' | 'onOutput' | 'keepOutput'>;

export interface HelperOptions extends Omit<LaunchOptions, keyof Tracking> {
  /** The streams passed on to the bench's stderr, prefixed with the name. */
  readonly echo: readonly Stream[];
}

export class Children {
  private readonly started: { readonly name: string; readonly child: ChildProcess }[] = [];

  /** Options for launch() or launchGateway() that register the process here and pass `echo` on. */
  tracking(name: string, echo: readonly Stream[]): Tracking {
    const sinks = new Map(echo.map((stream) => [stream, prefixLines(name, process.stderr)] as const));
    return {
      keepOutput: false,
      onSpawn: (child) => this.started.push({ name, child }),
      onOutput: (chunk, stream) => sinks.get(stream)?.(chunk),
    };
  }

  /** Starts a Node program from the repository root (see launcher.ts) and registers it. */
  start(options: HelperOptions): Promise<Launched> {
    const { echo, ...rest } = options;
    return launch({ startTimeoutMs: 60_000, ...rest, ...this.tracking(options.name, echo) });
  }

  /** SIGTERM to each (SIGKILL after 3 s); the emulators last, so that nothing still calling them logs refused connections. */
  async stopAll(): Promise<void> {
    const emulator = (name: string) => name.startsWith('emulator-');
    const stop = (list: typeof this.started) => Promise.all(list.map(({ child }) => stopProcess(child, { forceAfterMs: 3_000 })));
    await stop(this.started.filter(({ name }) => !emulator(name)));
    await stop(this.started.filter(({ name }) => emulator(name)));
  }

  /** SIGKILL to every one still running (synchronous, for the bench's own `exit`). */
  killAll(): void {
    for (const { child } of this.started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
