/**
 * The egress proxy: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`, and their lower-case forms, with
 * the meaning undici's EnvHttpProxyAgent gives them (src/upstream/egress.ts uses it): the
 * lower-case form wins over the upper-case one; `HTTP_PROXY` alone serves https:// destinations
 * too; `NO_PROXY` lists hosts reached directly (`host`, `.domain` or `domain` with its subdomains,
 * `*.domain` subdomains only, `host:port`, `*` for all). Upstream calls and the OTLP export go
 * through it; Redis never does (its clients are TCP, not HTTP).
 *
 * Resolved here, once, into explicit values: the two clients that use them (undici for the
 * upstream, node:http for the OTLP exporter) then read nothing from the environment themselves.
 * A proxy URL may carry the proxy's password: messages never repeat a value.
 */
import { z } from 'zod';
import { url } from './fields';

export interface EgressProxyConfig {
  /** The proxy for https:// destinations: HTTPS_PROXY, else HTTP_PROXY; '' for none. */
  readonly httpsProxy: string;
  /** The proxy for http:// destinations: HTTP_PROXY; '' for none. */
  readonly httpProxy: string;
  /** NO_PROXY as written (comma- or space-separated); '' for none. */
  readonly noProxy: string;
}

const proxyUrl = url(['http:', 'https:'], 'http://egress-proxy.internal:3128').optional();

export const EGRESS_FIELDS = {
  HTTPS_PROXY: proxyUrl,
  https_proxy: proxyUrl,
  HTTP_PROXY: proxyUrl,
  http_proxy: proxyUrl,
  NO_PROXY: z.string().trim().optional(),
  no_proxy: z.string().trim().optional(),
};

type EgressInput = z.output<z.ZodObject<typeof EGRESS_FIELDS>>;

/** The proxy settings, or undefined when no proxy is set: then nothing about egress changes. */
export function egressProxyConfig(e: EgressInput): EgressProxyConfig | undefined {
  const httpProxy = e.http_proxy ?? e.HTTP_PROXY ?? '';
  const httpsProxy = e.https_proxy ?? e.HTTPS_PROXY ?? httpProxy;
  if (!httpProxy && !httpsProxy) return undefined;
  return { httpsProxy, httpProxy, noProxy: e.no_proxy ?? e.NO_PROXY ?? '' };
}
