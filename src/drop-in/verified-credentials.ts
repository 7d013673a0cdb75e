/**
 * Drop-in credentials the upstream accepted recently. The gateway cannot check a devise token
 * itself (the upstream keeps only its hash), so a client's credential may be answered from a cache
 * only after the upstream authenticated it: an answer that carried devise's credential headers for
 * the same uid and client. Each such credential is remembered per upstream, uid and client (under
 * an HMAC of them, as a MAC of namespace, uid, client, token, expiry and end: see recordOf) for at
 * most a minute, shared by replicas; a newer token of the same client replaces it, and a sign-out through the
 * front forgets the client at once. A credential that is not verified (a store failure counts as
 * not verified) is passed through to the upstream whole (useDropInFront), which alone decides.
 */
import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { UpstreamCredential } from '../upstream/credential';
import type { DerivedKeys } from '../derived-keys';
import type { RedisClient } from '../redis';

/** How long one upstream acceptance lets caches answer for a credential. */
export const VERIFIED_FOR_MS = 60_000;

export interface VerifiedCredentials {
  /** The upstream `expiry` remembered with the credential, '' without one; undefined if not verified. */
  check(namespace: string, credential: UpstreamCredential): Promise<string | undefined>;
  remember(namespace: string, credential: UpstreamCredential, now: number): Promise<void>;
  /** Forgets every token of the credential's client (sign-out). */
  forget(namespace: string, credential: Pick<UpstreamCredential, 'uid' | 'client'>): Promise<void>;
}

/** What the record is MACed and named with: the gateway's keys derived from CREDENTIAL_KEY. */
export interface VerifiedCredentialsOptions {
  readonly keys: Pick<DerivedKeys, 'name' | 'names' | 'mac' | 'verify'>;
  readonly clock?: () => number;
}

const digest = (...parts: string[]) => hash('sha256', parts.join('\0'), 'base64url');

/** Names a credential without revealing it, in this process only (the executor's deduplication; never a store key). */
export const credentialDigest = (credential: UpstreamCredential) => digest(credential.uid, credential.client, credential.accessToken);

type Client = Pick<UpstreamCredential, 'uid' | 'client'>;
const PREFIX = 'sgw:front:verified:';

/**
 * The record: `<until> <expiry> <MAC>`. The MAC (the `front` key) covers namespace, uid, client,
 * token, expiry and until: a record planted or edited without CREDENTIAL_KEY, copied to another
 * client, or kept past `until` (by a longer TTL) verifies nothing.
 */
function recordOf(keys: VerifiedCredentialsOptions['keys'], namespace: string, credential: UpstreamCredential, until: number): string {
  const expiry = String(credential.expiry ?? '');
  return `${until} ${expiry} ${keys.mac('front', 'verified', namespace, credential.uid, credential.client, credential.accessToken, expiry, String(until))}`;
}

/** The remembered expiry if `stored` verifies for this credential and is still current, else undefined. */
function matching(keys: VerifiedCredentialsOptions['keys'], stored: string | null | undefined, namespace: string, credential: UpstreamCredential, now: number): string | undefined {
  const [until = '', expiry = '', tag = '', extra] = stored?.split(' ') ?? [];
  if (extra !== undefined || !(Number(until) > now)) return undefined;
  return keys.verify('front', tag, 'verified', namespace, credential.uid, credential.client, credential.accessToken, expiry, until) ? expiry : undefined;
}

const lifetime = (credential: UpstreamCredential, now: number) =>
  Math.round(Math.min(VERIFIED_FOR_MS, credential.expiry !== undefined ? credential.expiry * 1000 - now : VERIFIED_FOR_MS));

export function createVerifiedCredentials(redis: RedisClient | undefined, { keys, clock = Date.now }: VerifiedCredentialsOptions): VerifiedCredentials {
  // Names under every configured key: a sign-out forgets what replicas with the previous key wrote.
  const names = (namespace: string, credential: Client) => keys.names('front verified', namespace, credential.uid, credential.client).map((name) => `${PREFIX}${name}`);
  const nameOf = (namespace: string, credential: Client) => `${PREFIX}${keys.name('front verified', namespace, credential.uid, credential.client)}`;
  if (!redis) {
    const entries = new LRUCache<string, string>({ max: 100_000 });
    return {
      check(namespace, credential) {
        return Promise.resolve(matching(keys, entries.get(nameOf(namespace, credential)), namespace, credential, clock()));
      },
      remember(namespace, credential, now) {
        const ttl = lifetime(credential, now);
        if (ttl > 0) entries.set(nameOf(namespace, credential), recordOf(keys, namespace, credential, now + ttl), { ttl });
        return Promise.resolve();
      },
      forget(namespace, credential) {
        for (const name of names(namespace, credential)) entries.delete(name);
        return Promise.resolve();
      },
    };
  }
  return {
    async check(namespace, credential) {
      try {
        return matching(keys, await redis.get(nameOf(namespace, credential)), namespace, credential, clock());
      } catch {
        return undefined;
      }
    },
    async remember(namespace, credential, now) {
      const ttl = lifetime(credential, now);
      if (ttl <= 0) return;
      await redis.set(nameOf(namespace, credential), recordOf(keys, namespace, credential, now + ttl), 'PX', ttl).catch(() => undefined);
    },
    async forget(namespace, credential) {
      // One key per command: the names differ by key and need not share a Cluster slot.
      await Promise.all(names(namespace, credential).map((name) => redis.del(name).catch(() => undefined)));
    },
  };
}
