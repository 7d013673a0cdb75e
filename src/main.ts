/**
 * `npm start`: validates the configuration, starts the gateway (and, with no upstream URL, the
 * built-in emulator for both environments), prints what it started, and stops cleanly on SIGTERM.
 */
import { ConfigError, loadConfig } from './config';
import { sameSiteWarnings } from './config/same-site';
import { startGateway } from './server';

async function main(): Promise<void> {
  const config = loadConfig();
  const gateway = await startGateway(config);
  const lines: string[] = [];
  if (gateway.embedded) lines.push(gateway.embedded.banner);
  const inMemory = [config.redisUrl ? undefined : 'sessions', config.cacheRedisUrl ? undefined : 'caches'].filter(Boolean).join(' and ');
  if (inMemory) lines.push(` No ${config.redisUrl ? 'CACHE_REDIS_URL' : 'REDIS_URL'} set: ${inMemory} live in this process's memory (lost on restart, not shared).`);
  for (const warning of sameSiteWarnings(config)) {
    gateway.runtime.log.configWarning({ variable: 'ALLOWED_ORIGINS', message: warning });
    lines.push(` Warning: ${warning}`);
  }
  lines.push(` Statement gateway on ${gateway.url}/graphql${config.production ? '' : ' (GraphiQL in a browser)'}`);
  process.stderr.write(`${lines.join('\n')}\n`);

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
