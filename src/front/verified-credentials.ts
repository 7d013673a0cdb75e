/**
 * Drop-in credentials the upstream accepted recently. The gateway cannot check a devise token
 * itself (the upstream keeps only its hash), so a client's credential may be answered from a cache
 * only after the upstream answered it: each accepted credential is remembered (as a hash of the
 * three values, with its `expiry` for the echoed headers) for at most a minute, shared by
 * replicas; a sign-out through the front forgets it at once. A store failure means "not verified":
 * the request then goes to the upstream, uncached.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { UpstreamCredential } from '../credentials/types';

/** How long one upstream acceptance lets caches answer for a credential. */
export const VERIFIED_FOR_MS = 60_000;

export interface VerifiedCredentials {
  /** The upstream `expiry` remembered with the credential, '' without one; undefined if not verified. */
  check(credential: UpstreamCredential): Promise<string | undefined>;
  remember(credential: UpstreamCredential, now: number): Promise<void>;
  forget(credential: UpstreamCredential): Promise<void>;
}

/** Names a credential without revealing it (for keys and the executor's deduplication). */
export const credentialDigest = (credential: UpstreamCredential) =>
  createHash('sha256').update(`${credential.uid}\0${credential.client}\0${credential.accessToken}`).digest('base64url');

const keyOf = (credential: UpstreamCredential) => `sgw:front:verified:${credentialDigest(credential)}`;

const lifetime = (credential: UpstreamCredential, now: number) =>
  Math.min(VERIFIED_FOR_MS, credential.expiry !== undefined ? credential.expiry * 1000 - now : VERIFIED_FOR_MS);

export function createVerifiedCredentials(redis: Redis | undefined): VerifiedCredentials {
  if (!redis) {
    const entries = new LRUCache<string, string>({ max: 100_000 });
    return {
      check(credential) {
        return Promise.resolve(entries.get(keyOf(credential)));
      },
      remember(credential, now) {
        const ttl = lifetime(credential, now);
        if (ttl > 0) entries.set(keyOf(credential), credential.expiry !== undefined ? String(credential.expiry) : '', { ttl });
        return Promise.resolve();
      },
      forget(credential) {
        entries.delete(keyOf(credential));
        return Promise.resolve();
      },
    };
  }
  return {
    async check(credential) {
      try {
        return (await redis.get(keyOf(credential))) ?? undefined;
      } catch {
        return undefined;
      }
    },
    async remember(credential, now) {
      const ttl = Math.round(lifetime(credential, now));
      if (ttl <= 0) return;
      await redis.set(keyOf(credential), credential.expiry !== undefined ? String(credential.expiry) : '', 'PX', ttl).catch(() => undefined);
    },
    async forget(credential) {
      await redis.del(keyOf(credential)).catch(() => undefined);
    },
  };
}
