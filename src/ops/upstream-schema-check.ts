/**
 * One check of one environment's live upstream schema: sign in as the environment's service
 * account (its shared credential, credentials/service-accounts.ts: usually no sign-in at all),
 * introspect (one POST), then compare with the schema the gateway serves and validate every
 * trusted document (upstream/schema-drift.ts, upstream/trusted-document-drift.ts) on a thread of
 * their own (upstream/schema-drift-thread.ts), so that requests never wait for the comparison. The
 * background check (upstream-schema-watch.ts) and `npm run check:upstream`
 * (scripts/check-upstream.ts) both run it.
 *
 * It never throws: a failure is an outcome with a message for operators (never a token, a
 * password or an upstream body).
 */
import type { TrustedDocument } from '../config';
import type { CredentialLease, ServiceAccount, ServiceAccountCredentials } from '../credentials/service-accounts';
import { findGatewayError } from '../errors';
import { credentialFromHeaders } from '../upstream/credential';
import { bodyText, type UpstreamFetch } from '../upstream/fetch';
import { INTROSPECTION_OPERATION, INTROSPECTION_QUERY } from '../upstream/introspection';
import type { SchemaChange } from '../upstream/schema-drift';
import { findDriftOnThread, type DriftInput, type DriftOutput } from '../upstream/schema-drift-thread';
import type { UpstreamTarget } from '../upstream/target';
import type { InvalidDocument } from '../upstream/trusted-document-drift';

export interface SchemaCheckOptions {
  readonly upstream: UpstreamTarget;
  /** The environment's first service account (the contract's choice). */
  readonly account: ServiceAccount;
  readonly credentials: Pick<ServiceAccountCredentials, 'lease' | 'renew' | 'rotated'>;
  readonly upstreamFetch: UpstreamFetch;
  /** The upstream schema the gateway serves (Mesh's source, gateway/mesh.ts), printed. */
  readonly servedSdl: string;
  readonly documents: Iterable<Pick<TrustedDocument, 'id' | 'text'>>;
  /** UPSTREAM_TIMEOUT_MS: the bound of the upstream's part, sign-in and introspection together (each call is bounded by it too). */
  readonly timeoutMs: number;
  /** Runs the comparison (default: a thread of its own now; the watch queues them, one at a time). */
  readonly findDrift?: (input: DriftInput) => Promise<DriftOutput>;
}

export type SchemaCheckOutcome =
  | { readonly ok: true; readonly changes: readonly SchemaChange[]; readonly invalidDocuments: readonly InvalidDocument[]; readonly durationMs: number }
  | { readonly ok: false; readonly error: string; readonly durationMs: number };

/** The introspection's label in logs, metrics and spans: its root field. */
const OPERATION = '__schema';

/** Why a step failed, in words for operators: a GatewayError's code and message, else a generic one. */
function reasonOf(step: string, error: unknown): string {
  const known = findGatewayError(error);
  return known ? `${step}: ${known.code} (${known.message})` : `${step}: ${error instanceof Error ? error.message : String(error)}`;
}

/** The introspection answer: one POST with the account's credential (renewed once after a 401, a rotated token kept). */
async function introspect(options: SchemaCheckOptions): Promise<{ status: number; body: string }> {
  const { upstream, account, credentials, upstreamFetch } = options;
  let lease: CredentialLease;
  try {
    lease = await credentials.lease(account);
  } catch (error) {
    throw new Error(reasonOf(`signing in as service account ${account.name}`, error));
  }
  const body = JSON.stringify({ query: INTROSPECTION_QUERY, operationName: INTROSPECTION_OPERATION });
  const call = async () => {
    const { accessToken, client, uid } = lease.credential;
    const headers = { 'content-type': 'application/json', accept: 'application/json', 'access-token': accessToken, client, uid, 'token-type': 'Bearer' };
    return upstreamFetch(upstream.graphqlUrl, { method: 'POST', headers, body }, { environment: upstream.environment, operation: OPERATION, retry: 'safe' });
  };
  try {
    let response = await call();
    if (response.status === 401) {
      // Expired or signed out upstream: one new sign-in for everyone (renew), then once more.
      await response.body?.cancel().catch(() => undefined);
      lease = await credentials.renew(account, lease);
      response = await call();
    }
    const rotated = credentialFromHeaders((name) => response.headers.get(name));
    if (rotated && rotated.accessToken !== lease.credential.accessToken) await credentials.rotated(account, lease, rotated);
    return { status: response.status, body: await bodyText(response) };
  } catch (error) {
    throw new Error(reasonOf('introspecting the upstream', error));
  }
}

export interface RunningSchemaCheck {
  /** The upstream's part (sign-in, introspection) within UPSTREAM_TIMEOUT_MS, the comparison after it. */
  readonly outcome: Promise<SchemaCheckOutcome>;
  /** When the work itself is over (a late call goes on until its own timeout ends it). */
  readonly settled: Promise<void>;
}

/** `work`'s value, or 'late' after `ms`. */
function within<T>(work: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Starts one check: its outcome, and when its work is over (one check at a time waits for that). */
export function startSchemaCheck(options: SchemaCheckOptions): RunningSchemaCheck {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const answer = introspect(options);
  const outcome = (async (): Promise<SchemaCheckOutcome> => {
    try {
      const answered = await within(answer, options.timeoutMs);
      if (answered === 'late') return { ok: false, error: `the upstream did not answer within UPSTREAM_TIMEOUT_MS (${options.timeoutMs} ms)`, durationMs: took() };
      const documents = [...options.documents].map(({ id, text }) => ({ id, text }));
      const found = await (options.findDrift ?? findDriftOnThread)({ servedSdl: options.servedSdl, ...answered, documents });
      return found.ok ? { ok: true, changes: found.changes, invalidDocuments: found.invalidDocuments, durationMs: took() } : { ok: false, error: found.error, durationMs: took() };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error), durationMs: took() };
    }
  })();
  return { outcome, settled: Promise.all([answer.catch(() => undefined), outcome]).then(() => undefined) };
}

/** One check, its outcome only (npm run check:upstream). */
export function checkUpstreamSchema(options: SchemaCheckOptions): Promise<SchemaCheckOutcome> {
  return startSchemaCheck(options).outcome;
}
