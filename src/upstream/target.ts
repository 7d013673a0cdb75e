/** Where a request's upstream calls go: one upstream per environment, named for cache keys. */
import { createHash } from 'node:crypto';
import type { Environment } from '../environment';

export interface UpstreamTarget {
  readonly environment: Environment;
  readonly baseUrl: string;
  readonly graphqlUrl: string;
  /**
   * Names this upstream in cache keys: the environment and a hash of its base URL, so gateways
   * pointed at different upstreams never share entries through one cache store.
   */
  readonly cacheNamespace: string;
}

export function upstreamTarget(environment: Environment, baseUrl: string): UpstreamTarget {
  const cacheNamespace = `${environment}.${createHash('sha256').update(baseUrl).digest('base64url').slice(0, 8)}`;
  return { environment, baseUrl, graphqlUrl: `${baseUrl}/v2/graphql`, cacheNamespace };
}
