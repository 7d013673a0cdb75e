/**
 * The one way a gateway process is started: by the tests (test/support/gateway.ts), by
 * `npm run bench` (which also starts its helper servers with it) and by `npm run soak`. Node runs
 * the program itself with tsx's loader (`node --import tsx src/main.ts`, not tsx's CLI, which
 * would run it in a further child), so the pid is the gateway's own: its RSS and CPU time in /proc
 * and the signals sent to it are its own. No vitest here: scripts import this file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

/** The repository root: every program is started from it. */
export const ROOT = path.resolve(__dirname, '..', '..');

/** How a process ended: its exit code, or the name of the signal that ended it. */
export type ExitStatus = number | string | null;

export interface LaunchOptions {
  /** Names the process in error messages. */
  readonly name: string;
  /** Node's arguments (the program and its arguments, after any Node options). */
  readonly args: readonly string[];
  /** The whole environment besides PATH and HOME; an undefined value leaves the variable out. */
  readonly env: Record<string, string | undefined>;
  /** The URL once the output so far says the process is ready; without it, ready at once (URL ''). */
  readonly ready?: (output: string) => string | undefined;
  /** Default 30 s; a process not ready by then is killed. */
  readonly startTimeoutMs?: number;
  /** Every chunk of output as it arrives (to pass it on). */
  readonly onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  /** Called once the process exists, before it is ready (to stop it on an early exit of the caller). */
  readonly onSpawn?: (child: ChildProcess) => void;
  /**
   * Keep all output for `output()` (default true). False keeps only the output up to readiness,
   * for error messages, so a long-running process does not fill the caller's memory.
   */
  readonly keepOutput?: boolean;
}

export interface Launched {
  readonly name: string;
  /** The URL the ready line named ('' without a `ready` check). */
  readonly url: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything it wrote to stdout and stderr so far (see `keepOutput`). */
  output(): string;
  /** Resolves when it has exited. */
  readonly exited: Promise<ExitStatus>;
  /** Resolves once it has exited and all of its output has been read. */
  readonly finished: Promise<void>;
  running(): boolean;
  /** SIGTERM (and SIGKILL after `forceAfterMs`, when given), then the exit status. */
  stop(options?: StopOptions): Promise<ExitStatus>;
}

export interface StopOptions {
  /** SIGKILL if it has not exited this long after SIGTERM; without it, wait for as long as it takes. */
  readonly forceAfterMs?: number;
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** SIGTERM to a child (unless it has exited), SIGKILL after `forceAfterMs` if given; resolves once it has exited. */
export function stopProcess(child: ChildProcess, options: StopOptions = {}): Promise<void> {
  if (!running(child)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const force =
      options.forceAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            if (running(child)) child.kill('SIGKILL');
          }, options.forceAfterMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts `node <args>` in the repository root; resolves once `ready` finds its URL in the output. */
export function launch(options: LaunchOptions): Promise<Launched> {
  const child = spawn(process.execPath, options.args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) return Promise.reject(new Error(`${options.name} did not start`));
  const pid = child.pid;
  options.onSpawn?.(child);
  const keepAll = options.keepOutput ?? true;
  let output = '';
  let ready = false;
  const exited = new Promise<ExitStatus>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const finished = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const timeoutMs = options.startTimeoutMs ?? 30_000;

  return new Promise<Launched>((resolve, reject) => {
    const started = (url: string) => {
      ready = true;
      clearTimeout(timer);
      resolve({
        name: options.name,
        url,
        child,
        pid,
        output: () => output,
        exited,
        finished,
        running: () => running(child),
        stop: async (stopOptions) => {
          await stopProcess(child, stopOptions);
          return exited;
        },
      });
    };
    const check = () => {
      const url = options.ready ? options.ready(output) : '';
      if (url !== undefined) started(url);
    };
    const timer = setTimeout(() => {
      if (ready) return;
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream].setEncoding('utf8').on('data', (chunk: string) => {
        if (keepAll || !ready) output += chunk;
        options.onOutput?.(chunk, stream);
        if (!ready) check();
      });
    }
    void exited.then((status) => {
      if (ready) return;
      clearTimeout(timer);
      reject(new Error(`${options.name} exited (${String(status)}) before starting:\n${output}`));
    });
    if (!options.ready) started('');
  });
}

export interface GatewayLaunchOptions extends Omit<LaunchOptions, 'name' | 'args' | 'ready'> {
  /** Default 'gateway'. */
  readonly name?: string;
  /** Node options before the loader, such as `--cpu-prof`. */
  readonly nodeArgs?: readonly string[];
  /**
   * Also wait for the `gateway.started` log line, so that `output()` holds it (it goes to stdout,
   * the banner to stderr, and the two pipes are read in no fixed order). Needs LOG_LEVEL info or
   * lower.
   */
  readonly waitForStartedLog?: boolean;
}

/** The banner `src/main.ts` prints once it listens (group 1: the gateway's origin). */
const BANNER = / Statement gateway on (http:\/\/[^/\s]+)/;
const STARTED_LOG = /"event":"gateway.started","url":"([^"]+)"/;

/**
 * V8 flags the gateway runs with in production (the Dockerfile's CMD and `npm start` name the
 * same; test/e2e/deploy.test.ts checks): a larger young generation (semi-space 32 MiB instead of
 * 16) halves the scavenges of a request-heavy process; bench/README.md has the figures.
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

function gatewayArgs(nodeArgs: readonly string[] = []): string[] {
  return [...GATEWAY_NODE_FLAGS, ...nodeArgs, '--import', 'tsx', 'src/main.ts'];
}

/** Starts `src/main.ts` with `env` (plus PORT=0 unless `env` sets it); resolves once it listens. */
export function launchGateway(options: GatewayLaunchOptions): Promise<Launched> {
  const { nodeArgs, waitForStartedLog = false, name = 'gateway', env, ...rest } = options;
  return launch({
    ...rest,
    name,
    args: gatewayArgs(nodeArgs),
    env: { PORT: '0', ...env },
    ready: (output) => {
      const banner = BANNER.exec(output)?.[1];
      if (!banner || !waitForStartedLog) return banner;
      return STARTED_LOG.exec(output)?.[1];
    },
  });
}

/**
 * Runs `src/main.ts` with `env` (plus PORT=0 unless `env` sets it) expecting it to exit by itself
 * (a refused configuration): its exit code (null if it had to be killed after `timeoutMs`) and
 * all of its output.
 */
export async function runGatewayToExit(env: Record<string, string | undefined>, timeoutMs = 15_000): Promise<{ code: number | null; output: string }> {
  const gateway = await launch({ name: 'gateway', args: gatewayArgs(), env: { PORT: '0', ...env } });
  const timer = setTimeout(() => gateway.child.kill('SIGKILL'), timeoutMs);
  const status = await gateway.exited;
  await gateway.finished;
  clearTimeout(timer);
  return { code: typeof status === 'number' ? status : null, output: gateway.output() };
}

/** A loopback port the OS just gave out, for a process that must be told its port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
