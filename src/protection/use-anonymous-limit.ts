/**
 * RATE_LIMIT_ANONYMOUS: root fields of operations without an identity (`confirmRegistration`,
 * `session`, `__typename`, introspection where allowed), per client address with IPv6 by /64, so
 * that confirmation tokens cannot be guessed at will. An operation of one root field counts once.
 * Operations of `login` fields only are left to the login limits (login-limits.ts), which the
 * drop-in front's sign-in shares: a page's sign-in form is not limited twice. A `login` beside
 * another field still counts here, or a throwaway `login` would carry any guess past this limit.
 * Fails open (runtime.rateLimits: while Redis is away each replica counts for itself).
 *
 * @envelop/rate-limiter (the stack's choice) selects the root fields of Query and Mutation and
 * names the caller. Its store reads a list of timestamps and writes it back, which two replicas
 * can interleave; the store here counts instead, atomically, every field of one address into one
 * counter when the library reads, and refuses there with RATE_LIMITED and an exact Retry-After.
 * The library visits the document with TypeInfo and asks the store once per root field: it runs
 * only for operations without an identity, never on the hot path of a signed-in caller, and it is
 * given only the executed operation and its fragments (a sibling operation's fields are neither
 * walked nor counted). An operation with more root fields than the whole window admits is refused
 * at once, without the walk and without a store call per field.
 */
import { createHash } from 'node:crypto';
import { Store, useRateLimiter, type Identity } from '@envelop/rate-limiter';
import type { Plugin } from 'graphql-yoga';
import type { RateLimit } from '../config';
import type { IdentityContext } from '../identity/use-identity';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import { addressGroup, type ClientAddresses } from './client-address';
import { overLimit, type RateLimitStore } from './rate-limiter';
import type { DocumentFacts, ExecutedOperation } from '../gateway/executed';
import type { RequestSlot } from '../request/slot';

const LOGIN_ONLY = new Set(['login', '__typename']);

/** Names an address group to the library: a hash (base64url: no ':'), never the address itself. */
const addressHash = (address: string) => createHash('sha256').update(addressGroup(address)).digest('base64url');

/** The address's counter, shared with the drop-in front's pass-through (requests without a verified credential). */
const counterOf = (hash: string) => `anonymous:${hash}`;
export const anonymousCounterKey = (address: string) => counterOf(addressHash(address));

/**
 * Counts every field the library selects under the address's one counter. The library's field
 * identity is `<field>:<hash>`, or `<field>:<hash>:<hash>` for the second and later fields of a
 * rule (it prepends `identifier` to the rule's identityArgs each time it meets a new field): the
 * last segment is the address's hash either way.
 */
class AddressCountingStore extends Store {
  constructor(
    private readonly limit: RateLimit,
    private readonly counter: RateLimitStore,
    private readonly observers: { readonly log: LogEvents; readonly metrics: GatewayMetrics },
  ) {
    super();
  }

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    const key = counterOf(identity.fieldIdentity.split(':').at(-1) ?? '');
    const decision = await this.counter.hit(key, this.limit.max, this.limit.windowMs);
    if (!decision.allowed) throw overLimit(this.observers, 'anonymous', decision);
    return [];
  }

  setForIdentity(): Promise<void> {
    return Promise.resolve();
  }
}

export interface AnonymousLimitOptions {
  readonly limit: RateLimit;
  /** Shared by replicas, failing open. */
  readonly counters: RateLimitStore;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  /** The executed operation of each request (gateway/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** What is known of each parsed document (the operation alone with its fragments). */
  readonly documents: DocumentFacts;
  /** Each request's client address (useClientAddress). */
  readonly addresses: ClientAddresses;
}

export function useAnonymousLimit({ limit, counters, log, metrics, operations, documents, addresses }: AnonymousLimitOptions): Plugin<IdentityContext> {
  const identifyFn = (context: IdentityContext) => addressHash(addresses.of(context.request));
  const rule = { field: '*', identifyFn: (context: unknown) => identifyFn(context as IdentityContext), max: limit.max, window: `${Math.round(limit.windowMs / 1000)}s` };
  const library = useRateLimiter({
    identifyFn: () => 'anonymous',
    store: new AddressCountingStore(limit, counters, { log, metrics }),
    configByField: [{ ...rule, type: 'Query' }, { ...rule, type: 'Mutation' }],
  }) as unknown as Plugin<IdentityContext>;
  const onExecute = library.onExecute;
  return {
    ...library,
    onExecute(payload) {
      // Found once (gateway/executed.ts); without a selectable operation graphql-js refuses the document.
      const context = payload.args.contextValue as IdentityContext;
      const executed = operations.get(context.request);
      if (!onExecute || !executed || context.identity) return;
      const names = executed.fields.map((field) => field.name.value);
      if (names.includes('login') && names.every((name) => LOGIN_ONLY.has(name))) return;
      if (names.length > limit.max) {
        // Never admitted, however long it waits (rate-limiter.ts: heavier than the whole limit).
        payload.setResultAndStopExecution({ errors: [overLimit({ log, metrics }, 'anonymous', { allowed: false, retryAfterMs: Math.max(1_000, limit.windowMs) })] });
        return;
      }
      const document = documents.operationDocument(executed);
      if (!document) return;
      return onExecute({ ...payload, args: { ...payload.args, document } });
    },
  };
}
