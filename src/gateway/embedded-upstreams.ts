/**
 * The embedded default: with no upstream URL configured, the built-in emulator serves both
 * environments in this process, on free loopback ports, with the demo account.
 */
import { DEMO_ACCOUNT, startEmulator, type RunningEmulator } from '../../emulator';

export interface EmbeddedUpstreams {
  readonly sandbox: RunningEmulator;
  readonly production: RunningEmulator;
  readonly banner: string;
  close(): Promise<void>;
}

export async function startEmbeddedUpstreams(): Promise<EmbeddedUpstreams> {
  const [sandbox, production] = await Promise.all([
    startEmulator({ environment: 'sandbox' }),
    startEmulator({ environment: 'production' }),
  ]);
  const banner = [
    '------------------------------------------------------------------',
    ' No UPSTREAM_SANDBOX_URL / UPSTREAM_PRODUCTION_URL set: using the',
    ' built-in Statement Filing Service emulator (test double).',
    `   sandbox:    ${sandbox.url}`,
    `   production: ${production.url}`,
    ` Demo account: ${DEMO_ACCOUNT.email} / ${DEMO_ACCOUNT.password}`,
    '------------------------------------------------------------------',
  ].join('\n');
  return {
    sandbox, production, banner,
    close: async () => { await Promise.all([sandbox.close(), production.close()]); },
  };
}
