/**
 * Drop-in credentials the upstream accepted recently. The gateway cannot check a devise token
 * itself (the upstream keeps only its hash), so a client's credential may be answered from a cache
 * only after the upstream authenticated it: an answer that carried devise's credential headers for
 * the same uid and client. Each such credential is remembered per upstream, uid and client (under
 * an HMAC of them, as a MAC of namespace, uid, client, token, expiry and end: see recordOf) for at
 * most 10 s, shared by replicas; a newer token of the same client replaces it, and a sign-out through the
 * front forgets the client at once. A credential that is not verified (a store failure counts as
 * not verified) is passed through to the upstream whole (useDropInFront), which alone decides.
 *
 * 10 s is the contract's bound on how long a credential signed out or expired at the upstream
 * itself may still be answered from a cache. Any answer of the upstream that accepts the
 * credential renews it; a client whose reads all come from caches would still lapse every 10 s
 * and then send a burst of requests through, so a record is due for re-verification 3 s before
 * its end: the one request (across replicas: a claim in the same store) that claims it is passed
 * through to the upstream, whose answer renews the record or forgets it, while the others go on
 * being answered by the gateway. At most one upstream call per credential per window, and it is
 * a request of the client's own (no extra call, and a rotated token reaches the client with it).
 */
import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { UpstreamCredential } from '../upstream/credential';
import type { DerivedKeys } from '../derived-keys';
import type { RedisClient } from '../redis';

/** How long one upstream acceptance lets caches answer for a credential. */
export const VERIFIED_FOR_MS = 10_000;
/** How long before a record's end a request re-verifies it: the time its upstream call has to answer. */
export const REVERIFY_BEFORE_END_MS = 3_000;

export interface Verified {
  /** The upstream `expiry` remembered with the credential, '' without one. */
  readonly expiry: string;
  /** The record ends within REVERIFY_BEFORE_END_MS: one request should re-verify it (claimReverification). */
  readonly due: boolean;
}

export interface VerifiedCredentials {
  /** The credential's record, if the upstream accepted it recently; undefined if not verified. */
  check(namespace: string, credential: UpstreamCredential): Promise<Verified | undefined>;
  /**
   * Whether the caller is the one to re-verify a due credential now: true for one caller per
   * REVERIFY_BEFORE_END_MS across replicas (false when the store fails: the record still ends in time).
   */
  claimReverification(namespace: string, credential: Pick<UpstreamCredential, 'uid' | 'client'>): Promise<boolean>;
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
const CLAIM_PREFIX = 'sgw:front:reverify:';

/**
 * The record: `<until> <expiry> <MAC>`. The MAC (the `front` key) covers namespace, uid, client,
 * token, expiry and until: a record planted or edited without CREDENTIAL_KEY, copied to another
 * client, or kept past `until` (by a longer TTL) verifies nothing.
 */
function recordOf(keys: VerifiedCredentialsOptions['keys'], namespace: string, credential: UpstreamCredential, until: number): string {
  const expiry = String(credential.expiry ?? '');
  return `${until} ${expiry} ${keys.mac('front', 'verified', namespace, credential.uid, credential.client, credential.accessToken, expiry, String(until))}`;
}

/** The record if `stored` verifies for this credential and is still current, else undefined. */
function matching(keys: VerifiedCredentialsOptions['keys'], stored: string | null | undefined, namespace: string, credential: UpstreamCredential, now: number): Verified | undefined {
  const [until = '', expiry = '', tag = '', extra] = stored?.split(' ') ?? [];
  if (extra !== undefined || !(Number(until) > now)) return undefined;
  if (!keys.verify('front', tag, 'verified', namespace, credential.uid, credential.client, credential.accessToken, expiry, until)) return undefined;
  return { expiry, due: Number(until) - now <= REVERIFY_BEFORE_END_MS };
}

const lifetime = (credential: UpstreamCredential, now: number) =>
  Math.round(Math.min(VERIFIED_FOR_MS, credential.expiry !== undefined ? credential.expiry * 1000 - now : VERIFIED_FOR_MS));

export function createVerifiedCredentials(redis: RedisClient | undefined, { keys, clock = Date.now }: VerifiedCredentialsOptions): VerifiedCredentials {
  // Names under every configured key: a sign-out forgets what replicas with the previous key wrote.
  const names = (namespace: string, credential: Client) => keys.names('front verified', namespace, credential.uid, credential.client).map((name) => `${PREFIX}${name}`);
  const nameOf = (namespace: string, credential: Client) => `${PREFIX}${keys.name('front verified', namespace, credential.uid, credential.client)}`;
  const claimOf = (namespace: string, credential: Client) => `${CLAIM_PREFIX}${keys.name('front reverify', namespace, credential.uid, credential.client)}`;
  if (!redis) {
    const entries = new LRUCache<string, string>({ max: 100_000 });
    const claims = new LRUCache<string, true>({ max: 100_000, ttl: REVERIFY_BEFORE_END_MS });
    return {
      check(namespace, credential) {
        return Promise.resolve(matching(keys, entries.get(nameOf(namespace, credential)), namespace, credential, clock()));
      },
      claimReverification(namespace, credential) {
        const name = claimOf(namespace, credential);
        if (claims.has(name)) return Promise.resolve(false);
        claims.set(name, true);
        return Promise.resolve(true);
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
    async claimReverification(namespace, credential) {
      try {
        return (await redis.set(claimOf(namespace, credential), '1', 'PX', REVERIFY_BEFORE_END_MS, 'NX')) === 'OK';
      } catch {
        return false;
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
