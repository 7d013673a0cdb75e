/**
 * RATE_LIMIT_ANONYMOUS: root fields of operations without an identity (`confirmRegistration`,
 * `session`, `__typename`, introspection where allowed), per client address with IPv6 by /64, so
 * that confirmation tokens cannot be guessed at will. An operation of n root fields (aliases
 * included) weighs n, counted atomically on the address's one counter, which the drop-in front's
 * pass-through shares. Operations of `login` fields only are left to the login limits
 * (login-limits.ts), which the drop-in front's sign-in shares: a page's sign-in form is not
 * limited twice. A `login` beside another field still counts here, or a throwaway `login` would
 * carry any guess past this limit (the pipeline refuses such a document before, in
 * session/use-lone-session-fields.ts; this limit does not lean on that). Fails open (runtime.rateLimits: while Redis is away each
 * replica counts for itself).
 *
 * The counter is named by an HMAC of the address group under the key-names key derived from
 * CREDENTIAL_KEY: a bare hash of an IPv4 address is reversed by trying all 2^32 of them, so a
 * Redis reader would learn every client's address. Only the current key names it, never one of
 * CREDENTIAL_KEY_PREVIOUS: a counter lives one window or two, so a rotation starts the counts
 * afresh once, which costs less than counting every request under two names.
 *
 * Our own hook rather than @envelop/rate-limiter: the library counts per field name with a store
 * of timestamp lists that two replicas can interleave, visits the whole document (sibling
 * operations included) with TypeInfo, and says who asks only through its internal field-identity
 * string. The root fields are already found once (request/executed.ts), and the counter store
 * (rate-limiter.ts) admits a weight in one atomic step, exactly as useRateLimits does per identity.
 */
import type { Plugin } from 'graphql-yoga';
import type { RateLimit } from '../config';
import type { DerivedKeys } from '../derived-keys';
import type { IdentityContext } from '../identity/use-identity';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import { addressGroup, type ClientAddresses } from './client-address';
import { overLimit, type RateLimitStore } from './rate-limiter';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';

const LOGIN_ONLY = new Set(['login', '__typename']);

/** The address group's counter: an HMAC (`names`), never the address nor a bare hash of it (keys are visible to operators). */
export const anonymousCounterKey = (names: AddressNames, address: string) => `anonymous:${names.name('anonymous', addressGroup(address))}`;

/** Names the counters' keys: DerivedKeys.name under CREDENTIAL_KEY (src/derived-keys.ts). */
export type AddressNames = Pick<DerivedKeys, 'name'>;

export interface AnonymousLimitOptions {
  readonly limit: RateLimit;
  /** Shared by replicas, failing open. */
  readonly counters: RateLimitStore;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** Each request's client address (useClientAddress). */
  readonly addresses: ClientAddresses;
  /** Names each address group's counter by an HMAC. */
  readonly names: AddressNames;
}

export function useAnonymousLimit({ limit, counters, log, metrics, operations, addresses, names }: AnonymousLimitOptions): Plugin<IdentityContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue;
      // Found once (request/executed.ts); without a selectable operation graphql-js refuses the document.
      const executed = operations.get(context.request);
      if (!executed || context.identity) return;
      const fields = executed.fields.map((field) => field.name.value);
      if (fields.length === 0 || (fields.includes('login') && fields.every((name) => LOGIN_ONLY.has(name)))) return;
      if (fields.length > limit.max) {
        // Never admitted, however long it waits (rate-limiter.ts: heavier than the whole limit); no store call.
        setResultAndStopExecution({ errors: [overLimit({ log, metrics }, 'anonymous', { allowed: false, retryAfterMs: Math.max(1_000, limit.windowMs) })] });
        return;
      }
      const decision = await counters.hit(anonymousCounterKey(names, addresses.of(context.request)), limit.max, limit.windowMs, fields.length);
      if (!decision.allowed) setResultAndStopExecution({ errors: [overLimit({ log, metrics }, 'anonymous', decision)] });
    },
  };
}
