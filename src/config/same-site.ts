/**
 * The session cookie is `SameSite=Strict`: a browser sends it only between origins of one site.
 * `localhost` and `127.0.0.1` (or two IP addresses) are different sites, so a page on
 * http://localhost:5173 calling a gateway on http://127.0.0.1:4000 gets a 200 login and then a
 * silent 401: the browser drops the cookie. Found while building a page against the gateway; the
 * start-up warns when ALLOWED_ORIGINS makes that mistake likely.
 */
import { isIP } from 'node:net';

/** Hosts on which the gateway answers under any name: nothing to compare. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** One line per allowed origin on an IP or `localhost` that is not the host the gateway listens on. */
export function sameSiteWarnings(config: { readonly host: string; readonly allowedOrigins: readonly string[] }): string[] {
  const host = bare(config.host);
  if (WILDCARD_HOSTS.has(config.host) || WILDCARD_HOSTS.has(host)) return [];
  const warnings: string[] = [];
  for (const origin of config.allowedOrigins) {
    let name: string;
    try {
      name = bare(new URL(origin).hostname);
    } catch {
      continue;
    }
    if ((isIP(name) === 0 && name !== 'localhost') || name === host) continue;
    warnings.push(
      `ALLOWED_ORIGINS: ${origin} is on ${name} and the gateway on ${host}: browsers treat them as different sites and never send the SameSite=Strict session cookie back (a login succeeds, then every request is 401). Serve the page and the gateway under one host name.`,
    );
  }
  return warnings;
}
