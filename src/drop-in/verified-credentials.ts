/**
 * Drop-in credentials the upstream accepted recently. The gateway cannot check a devise token
 * itself (the upstream keeps only its hash), so a client's credential may be answered from a cache
 * only after the upstream authenticated it: an answer that carried devise's credential headers for
 * the same uid and client. Each such credential is remembered per upstream, uid and client (a hash
 * of the token as the value, with its `expiry` for the echoed headers) for at most a minute,
 * shared by replicas; a newer token of the same client replaces it, and a sign-out through the
 * front forgets the client at once. A credential that is not verified (a store failure counts as
 * not verified) is passed through to the upstream whole (useDropInFront), which alone decides.
 */
import { hash } from 'node:crypto';
import type { RedisClient } from '../redis';
import { LRUCache } from 'lru-cache';
import type { UpstreamCredential } from '../credentials/types';

/** How long one upstream acceptance lets caches answer for a credential. */
export const VERIFIED_FOR_MS = 60_000;

export interface VerifiedCredentials {
  /** The upstream `expiry` remembered with the credential, '' without one; undefined if not verified. */
  check(namespace: string, credential: UpstreamCredential): Promise<string | undefined>;
  remember(namespace: string, credential: UpstreamCredential, now: number): Promise<void>;
  /** Forgets every token of the credential's client (sign-out). */
  forget(namespace: string, credential: Pick<UpstreamCredential, 'uid' | 'client'>): Promise<void>;
}

const digest = (...parts: string[]) => hash('sha256', parts.join('\0'), 'base64url');

/** Names a credential without revealing it (for the executor's deduplication). */
export const credentialDigest = (credential: UpstreamCredential) => digest(credential.uid, credential.client, credential.accessToken);

const keyOf = (namespace: string, credential: Pick<UpstreamCredential, 'uid' | 'client'>) =>
  `sgw:front:verified:${digest(namespace, credential.uid, credential.client)}`;
const valueOf = (credential: UpstreamCredential) => `${digest(credential.accessToken)} ${credential.expiry ?? ''}`;
/** The remembered expiry if `stored` is this credential's token, else undefined. */
function matching(stored: string | null | undefined, credential: UpstreamCredential): string | undefined {
  if (!stored) return undefined;
  const [token, expiry = ''] = stored.split(' ');
  return token === digest(credential.accessToken) ? expiry : undefined;
}

const lifetime = (credential: UpstreamCredential, now: number) =>
  Math.round(Math.min(VERIFIED_FOR_MS, credential.expiry !== undefined ? credential.expiry * 1000 - now : VERIFIED_FOR_MS));

export function createVerifiedCredentials(redis: RedisClient | undefined): VerifiedCredentials {
  if (!redis) {
    const entries = new LRUCache<string, string>({ max: 100_000 });
    return {
      check(namespace, credential) {
        return Promise.resolve(matching(entries.get(keyOf(namespace, credential)), credential));
      },
      remember(namespace, credential, now) {
        const ttl = lifetime(credential, now);
        if (ttl > 0) entries.set(keyOf(namespace, credential), valueOf(credential), { ttl });
        return Promise.resolve();
      },
      forget(namespace, credential) {
        entries.delete(keyOf(namespace, credential));
        return Promise.resolve();
      },
    };
  }
  return {
    async check(namespace, credential) {
      try {
        return matching(await redis.get(keyOf(namespace, credential)), credential);
      } catch {
        return undefined;
      }
    },
    async remember(namespace, credential, now) {
      const ttl = lifetime(credential, now);
      if (ttl <= 0) return;
      await redis.set(keyOf(namespace, credential), valueOf(credential), 'PX', ttl).catch(() => undefined);
    },
    async forget(namespace, credential) {
      await redis.del(keyOf(namespace, credential)).catch(() => undefined);
    },
  };
}
