/**
 * `npm start` and `npm run start:prod`: validates the configuration, starts the gateway (and, with
 * no upstream URL, the built-in emulator for both environments), prints what it started, and on
 * SIGTERM drains (src/gateway/drain.ts) and exits 0.
 */
// First: refuses an unsupported Node before any dependency is loaded.
import './node-version';
import path from 'node:path';
import { ConfigError, loadConfig } from './config';
import { startBanner } from './gateway/banner';
import { startGateway } from './gateway/server';

/** Compiled to dist/ (`npm run build`), where the emulator is left out on purpose. */
const COMPILED = path.extname(__filename) === '.js';

async function main(): Promise<void> {
  const config = loadConfig();
  if (COMPILED && (!config.upstreamUrls.sandbox || !config.upstreamUrls.production)) {
    throw new ConfigError('Invalid configuration:\n  UPSTREAM_SANDBOX_URL: is required by the compiled gateway (npm run start:prod), with UPSTREAM_PRODUCTION_URL: the built-in emulator is for development only (npm start)');
  }
  // A signal before the gateway serves (a pod deleted while it waits for Redis): nothing to drain.
  // Without a handler Node would die of it, or, as PID 1 in the image, ignore it until SIGKILL.
  const beforeStart = () => process.exit(0);
  process.on('SIGTERM', beforeStart);
  process.on('SIGINT', beforeStart);
  const gateway = await startGateway(config);
  process.off('SIGTERM', beforeStart);
  process.off('SIGINT', beforeStart);
  process.stderr.write(startBanner(config, gateway));

  const stop = (signal: string, run: () => Promise<void>, graceMs: number) => {
    gateway.runtime.log.gatewayStopping(signal);
    // Only if the drain itself hangs (it bounds every step).
    setTimeout(() => process.exit(1), graceMs + 5_000).unref();
    void run().then(() => process.exit(0));
  };
  const { delayMs, timeoutMs } = config.shutdown;
  // `on`, not `once`: a signal sent to the process group arrives twice (from the kernel, and again
  // forwarded by npm), and a second SIGTERM must not end the process mid-drain with Node's default.
  process.on('SIGTERM', () => stop('SIGTERM', () => gateway.drain(), delayMs + timeoutMs));
  // Ctrl-C at a terminal: no load balancer to wait for.
  process.on('SIGINT', () => stop('SIGINT', () => gateway.close(), 2_000));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`The gateway could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
