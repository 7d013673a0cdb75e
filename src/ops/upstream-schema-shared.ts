/**
 * How replicas share the upstream schema check, through the cache store (Redis when configured):
 * one replica claims an environment's check for an interval (SET NX PX, never released: the claim
 * is "someone checked within the interval"), and every result is published for the others to
 * show. So an upstream hears one introspection per environment per interval, however many
 * replicas run, and every replica's /ops, gauges and `GET /ops/upstream-schema` say the same.
 *
 * Results are keyed by a fingerprint of what was compared (the served schema and the trusted
 * documents): during a rollout, replicas of two builds each check for their own build. A record is
 * MACed with a key derived from CREDENTIAL_KEY, so whoever can write the cache Redis cannot plant
 * a result that hides a breaking change (or raises a false one); a record that fails is ignored.
 * The store fails open (cache/fail-open.ts): while it is down every replica checks for itself.
 */
import { createHash } from 'node:crypto';
import type { CacheStore } from '../cache/cache-store';
import type { DerivedKeys } from '../derived-keys';
import type { Environment } from '../environment';
import type { SchemaChange } from '../upstream/schema-drift';
import type { InvalidDocument } from '../upstream/trusted-document-drift';

/** One environment's last check, as published: self-contained (a failure carries the last success's findings). */
export interface CheckRecord {
  /** Epoch ms of the attempt. */
  readonly at: number;
  readonly ok: boolean;
  /** Why it failed (operators' words). */
  readonly error?: string;
  readonly durationMs: number;
  /** Of the last successful check (this one when `ok`). */
  readonly changes: readonly SchemaChange[];
  readonly invalidDocuments: readonly InvalidDocument[];
  /** Epoch ms of the last successful check; null before one. */
  readonly lastSuccessAt: number | null;
}

export interface SharedSchemaChecks {
  /** The last record published for the environment, if any (and genuine). */
  latest(environment: Environment): Promise<CheckRecord | undefined>;
  /** True when this replica is the one to check the environment in this interval. */
  claim(environment: Environment, intervalMs: number): Promise<boolean>;
  publish(environment: Environment, record: CheckRecord, ttlMs: number): Promise<void>;
}

export interface SharedSchemaChecksOptions {
  readonly store: Pick<CacheStore, 'get' | 'set' | 'acquireLock'>;
  readonly keys: Pick<DerivedKeys, 'mac' | 'verify'>;
  /** Each environment's upstream in key names (UpstreamTarget.cacheNamespace): other upstreams, other records. */
  readonly namespaces: Readonly<Record<Environment, string>>;
  /** schemaCheckFingerprint() of this build. */
  readonly fingerprint: string;
}

/** What a check compares: the served schema (printed) and the trusted documents' ids. */
export function schemaCheckFingerprint(servedSdl: string, documentIds: Iterable<string>): string {
  return createHash('sha256').update(servedSdl).update('\n').update([...documentIds].sort().join(',')).digest('hex').slice(0, 16);
}

export function createSharedSchemaChecks({ store, keys, namespaces, fingerprint }: SharedSchemaChecksOptions): SharedSchemaChecks {
  const key = (environment: Environment, part: string) => `sgw:cache:{${namespaces[environment]}}:schema-check:${fingerprint}${part}`;
  return {
    async latest(environment) {
      const text = await store.get(key(environment, ''));
      if (!text) return undefined;
      try {
        const { record, mac } = JSON.parse(text) as { record?: unknown; mac?: unknown };
        const body = JSON.stringify(record);
        if (typeof mac !== 'string' || !keys.verify('upstream-schema', mac, environment, fingerprint, body)) return undefined;
        return record as CheckRecord;
      } catch {
        return undefined;
      }
    },
    async claim(environment, intervalMs) {
      // Each replica ticks once per interval: the first tick after the claim expired takes it.
      return (await store.acquireLock(key(environment, ':claim'), intervalMs, fingerprint)) !== null;
    },
    async publish(environment, record, ttlMs) {
      const body = JSON.stringify(record);
      await store.set(key(environment, ''), JSON.stringify({ record, mac: keys.mac('upstream-schema', environment, fingerprint, body) }), ttlMs);
    },
  };
}
