/**
 * The way out through an egress proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY: src/config/egress.ts),
 * built once per gateway and handed to whatever calls out over HTTP: undici's EnvHttpProxyAgent as
 * the dispatcher of the upstream client (fetch.ts, probe.ts, Mesh's own fetch), and node:http
 * agents with the same settings for the OTLP exporter, which sends with node:http rather than
 * undici. https:// destinations are tunnelled (CONNECT), http:// ones sent to the proxy in
 * absolute form, as curl does; NO_PROXY hosts are reached directly.
 *
 * Without a proxy configured there is no Egress at all: every client keeps its own default
 * (undici's global dispatcher, the exporter's own agent), exactly as before. Redis never goes
 * through here.
 */
import type { Agent as HttpAgent } from 'node:http';
import { EnvHttpProxyAgent, type Dispatcher } from 'undici';
import type { EgressProxyConfig } from '../config';

export interface Egress {
  /** For undici's `request` and `fetch` (`dispatcher` option). */
  readonly dispatcher: Dispatcher;
  /** A node:http(s) agent for `protocol` (`http:` or `https:`): the OTLP exporter's `httpAgentOptions`. */
  readonly agentFor: (protocol: string) => Promise<HttpAgent>;
  /** Closes the proxy connections (the gateway's close()). */
  close(): Promise<void>;
}

export function createEgress(proxy: EgressProxyConfig): Egress {
  // Explicit values ('' for none): undici would otherwise read process.env for any left undefined.
  const dispatcher = new EnvHttpProxyAgent({ httpProxy: proxy.httpProxy, httpsProxy: proxy.httpsProxy, noProxy: proxy.noProxy });
  // Node's own proxy support (http.Agent's proxyEnv) reads the same three values, given as an
  // environment of their own, never process.env.
  const proxyEnv = { HTTP_PROXY: proxy.httpProxy, HTTPS_PROXY: proxy.httpsProxy, NO_PROXY: proxy.noProxy };
  const agents: HttpAgent[] = [];
  return {
    dispatcher,
    async agentFor(protocol) {
      // Loaded when asked, as the exporter recommends: a tracing-free gateway never loads them.
      const agent = protocol === 'http:' ? new (await import('node:http')).Agent({ keepAlive: true, proxyEnv }) : new (await import('node:https')).Agent({ keepAlive: true, proxyEnv });
      agents.push(agent);
      return agent;
    },
    async close() {
      for (const agent of agents) agent.destroy();
      await dispatcher.close();
    },
  };
}
