/**
 * The Statement Filing Service emulator, in-process: `startEmulator({ environment, port })` listens
 * on loopback and returns its URL and a `close()`. It never imports gateway code.
 */
import type { AddressInfo } from 'node:net';
import { createEmulatorServer } from './http/server';
import { DEMO_ACCOUNT, EmulatorState, type Environment } from './state';

export { DEMO_ACCOUNT, type Environment } from './state';

export interface EmulatorOptions {
  /** sandbox (default) or production. */
  readonly environment?: Environment;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** The clock of tokens and their batch window (Date.now by default): a test moves it instead of sleeping. */
  readonly now?: () => number;
}

export interface RunningEmulator {
  readonly url: string;
  readonly environment: Environment;
  readonly demoAccount: typeof DEMO_ACCOUNT;
  /** The live state, for in-process inspection by tests and embedders. */
  readonly state: EmulatorState;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const environment = options.environment ?? 'sandbox';
  const host = options.host ?? '127.0.0.1';
  const state = new EmulatorState(environment, options.now);
  await state.warmUp();
  const { server, abortPending } = createEmulatorServer(state);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    environment,
    demoAccount: DEMO_ACCOUNT,
    state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        abortPending();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
