/**
 * The parts of the gateway's configuration (GatewayConfig, ./index.ts) that group several
 * variables, each documented where it is declared.
 */
import type { TrustedDocument } from './trusted-documents';

/** What SIGTERM does: src/gateway/drain.ts. */
export interface ShutdownConfig {
  /** SHUTDOWN_DELAY: every request still served while /readiness already answers 503, so load balancers stop sending first. */
  readonly delayMs: number;
  /** SHUTDOWN_TIMEOUT: then, how long requests in flight may finish before their connections are closed. */
  readonly timeoutMs: number;
}

export interface RateLimit {
  readonly max: number;
  readonly windowMs: number;
}

export interface LimitsConfig {
  /** Failed `login`s per client address and e-mail (brute force on one account); a success resets it. */
  readonly login: RateLimit;
  /** `login` per client address, whatever the e-mail (credential stuffing). */
  readonly loginPerAddress: RateLimit;
  /**
   * Failed logins per e-mail from any address (a distributed guess at one account). Over it,
   * refusals back off from 1 s, doubling up to 15 min, until a successful login: never a lock.
   */
  readonly loginPerAccount: RateLimit;
  /** Root fields per identity (browser session, drop-in credential), counted in total. */
  readonly session: RateLimit;
  /** Operations without an identity (`confirmRegistration`, ...) per client address: guessing tokens. */
  readonly anonymous: RateLimit;
  /** Request bodies larger than this are refused with 413. */
  readonly maxBodyBytes: number;
  /** Longer query texts are QUERY_TOO_COMPLEX before parsing (variables carry bulk data). */
  readonly maxQueryBytes: number;
  /** Schema introspection (`__schema`, `__type`); default off in production. */
  readonly introspection: boolean;
}

export interface CacheConfig {
  /** statementDefinitions: answered from the cache without asking the upstream for this long. */
  readonly definitionsFreshMs: number;
  /** After that, served stale (and refreshed in the background) for this long while the upstream fails. */
  readonly definitionsStaleIfErrorMs: number;
  /** Statement reads without `pdf`, per identity. */
  readonly readsTtlMs: number;
  /** PDFs, per identity and statement. */
  readonly pdfTtlMs: number;
  /** Larger PDFs are not stored (0: no PDF is stored). */
  readonly pdfMaxBytes: number;
}

export interface TrustedDocumentsConfig {
  /** TRUSTED_DOCUMENTS_FILE's documents by SHA-256 (lowercase hex), parsed; empty without it. */
  readonly documents: ReadonlyMap<string, TrustedDocument>;
  /**
   * TRUSTED_DOCUMENTS_ONLY: browser sessions and anonymous callers may send only known documents,
   * never a query text, so that no document the frontend does not send is parsed, validated or run
   * for them (crafted queries, schema probing, denial of service by expensive documents).
   */
  readonly only: boolean;
}

/** The upstream schema check (src/ops/upstream-schema-watch.ts, docs/operations.md). */
export interface UpstreamSchemaCheckConfig {
  /** UPSTREAM_SCHEMA_CHECK_INTERVAL: how often each environment's live schema is compared with the gateway's; 0: never. */
  readonly intervalMs: number;
}
