/**
 * `npm start`: validates the configuration, starts the gateway (and, with no upstream URL, the
 * built-in emulator for both environments), prints what it started, and stops cleanly on SIGTERM.
 */
import { ConfigError, loadConfig } from './config';
import { startBanner } from './gateway/banner';
import { startGateway } from './server';

async function main(): Promise<void> {
  const config = loadConfig();
  const gateway = await startGateway(config);
  process.stderr.write(startBanner(config, gateway));

  const stop = (signal: string) => {
    gateway.runtime.log.gatewayStopping(signal);
    const force = setTimeout(() => process.exit(1), 5_000);
    force.unref();
    void gateway.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`The gateway could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
