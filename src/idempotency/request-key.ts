/**
 * What identifies an idempotent request: the Idempotency-Key header as the contract allows it, and
 * a fingerprint of the request (document text, operation name, variables with their keys in a
 * canonical order) keyed with a key derived from CREDENTIAL_KEY, so the store holds no hash of
 * statement data that a guess could be tested against.
 */
import type { DerivedKeys } from '../derived-keys';

/** 1 to 255 visible ASCII characters (`!` to `~`). */
const KEY_SYNTAX = /^[!-~]{1,255}$/;

/** The header's key; undefined when absent or empty (no header); malformed when present but not allowed. */
export function idempotencyKeyOf(request: Request): { readonly key: string } | { readonly malformed: true } | undefined {
  const value = request.headers.get('idempotency-key');
  if (value === null || value === '') return undefined;
  return KEY_SYNTAX.test(value) ? { key: value } : { malformed: true };
}

/** JSON with every object's keys sorted: `{"b":1,"a":2}` and `{"a":2,"b":1}` are the same variables. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What a fingerprint covers, in order. */
export function fingerprintParts(document: string, operationName: string | undefined, variables: unknown): readonly string[] {
  return [document, operationName ?? '', canonicalJson(variables ?? {})];
}

export function requestFingerprint(keys: Pick<DerivedKeys, 'mac'>, parts: readonly string[]): string {
  return keys.mac('idempotency-fingerprint', ...parts);
}

/** Whether `fingerprint` (kept under the current or a previous CREDENTIAL_KEY) is of this request. */
export function isFingerprintOf(keys: Pick<DerivedKeys, 'verify'>, fingerprint: string, parts: readonly string[]): boolean {
  return keys.verify('idempotency-fingerprint', fingerprint, ...parts);
}
