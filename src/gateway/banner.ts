/**
 * What a started gateway tells whoever started it: the built-in emulator and its demo account,
 * stores that live in memory, configuration warnings (also logged), and where it listens.
 */
import type { GatewayConfig } from '../config';
import { sameSiteWarnings } from '../config/same-site';
import type { RunningGateway } from './server';

export function startBanner(config: GatewayConfig, gateway: RunningGateway): string {
  const lines: string[] = [];
  if (gateway.embedded) lines.push(gateway.embedded.banner);
  const inMemory = [config.redis ? undefined : 'sessions', config.cacheRedis ? undefined : 'caches'].filter(Boolean).join(' and ');
  if (inMemory) lines.push(` No ${config.redis ? 'CACHE_REDIS_URL' : 'REDIS_URL'} set: ${inMemory} live in this process's memory (lost on restart, not shared).`);
  for (const warning of sameSiteWarnings(config)) {
    gateway.runtime.log.configWarning({ variable: 'ALLOWED_ORIGINS', message: warning });
    lines.push(` Warning: ${warning}`);
  }
  if (config.insecureTransport.length) {
    // A deliberate choice for a private network, but one an operator must be able to see.
    const warning = `ALLOW_INSECURE_TRANSPORT=true: ${config.insecureTransport.join(', ')} without TLS in production (only safe on a private network)`;
    gateway.runtime.log.configWarning({ variable: 'ALLOW_INSECURE_TRANSPORT', message: warning });
    lines.push(` Warning: ${warning}`);
  }
  if (config.cookieSecure && !config.production) {
    // On by default as soon as upstream URLs are set: a plain-http LAN or Docker host name then
    // gets a 200 login and 401s after it, with nothing in the logs to say why.
    lines.push(
      ' Session cookie: Secure (__Host-sgw_session) with HSTS, since COOKIE_SECURE is on (the default once upstream URLs are set).' +
        ' Browsers keep it over HTTPS (and on localhost) only: on plain http by another host name, serve TLS or set COOKIE_SECURE=false.',
    );
  }
  lines.push(` Statement gateway on ${gateway.url}/graphql${config.production ? '' : ' (GraphiQL in a browser)'}`);
  // With OPS_PORT, /metrics and /ops/ are 404 on the traffic port: say where they went.
  if (gateway.opsUrl) lines.push(` Probes, /metrics and /ops/ on ${gateway.opsUrl}`);
  return `${lines.join('\n')}\n`;
}
