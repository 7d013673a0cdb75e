import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

const hashes = new LRUCache<string, string>({ max: 10_000 });

/**
 * The cache scope of an upstream identity: its upstream (environment and URL hash, see
 * UpstreamTarget.cacheNamespace) and a hash of its uid (an e-mail, whatever characters it holds,
 * in a fixed alphabet without braces). Everything cached for one identity lives under this hash
 * tag. The store never sees it as it is: sealGroupMembers (sealed-values.ts) names each group by
 * an HMAC of this tag under a key derived from CREDENTIAL_KEY.
 */
export function identityScope(cacheNamespace: string, uid: string): string {
  let hash = hashes.get(uid);
  if (hash === undefined) hashes.set(uid, (hash = createHash('sha256').update(uid).digest('base64url').slice(0, 22)));
  return `${cacheNamespace}:${hash}`;
}
