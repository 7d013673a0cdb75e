/**
 * Rate limits on GraphQL fields, with @envelop/rate-limiter choosing the fields and identities:
 * - `login` per client address and e-mail (brute force on one account), and per address
 *   (credential stuffing). These fail closed: while their store cannot be reached, `login` answers
 *   SESSION_STORE_UNAVAILABLE rather than allowing unlimited guesses.
 * - every root field per browser session. This one fails open (each replica counts for itself).
 *   It is counted here directly from the operation's root fields, with the keys the library would
 *   use: the library visits the whole document with TypeInfo once per rule and request, which was
 *   8 % of a pass-through request's CPU (npm run bench profile). The login rules run the library
 *   only for operations that select `login`.
 * (Service accounts have their own `requestsPerMinute`, checked with their API key.)
 *
 * The library reads a list of timestamps from its store and writes it back, which two replicas can
 * interleave. Its store here counts instead, atomically (a Lua script in Redis: see
 * rate-limiter.ts), when the library reads, and refuses there with RATE_LIMITED and an exact
 * `Retry-After`; the library's own write is then a no-op.
 */
import { createHash } from 'node:crypto';
import { Store, useRateLimiter, type Identity } from '@envelop/rate-limiter';
import { OperationTypeNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { RateLimit } from '../config';
import { gatewayError } from '../errors';
import type { GatewayContext } from '../plugins/context';
import type { GatewayRuntime } from '../runtime';
import { overLimit, type RateLimitStore } from './rate-limiter';

/** The identifier of callers a rule does not limit (the library's field identity ends with it). */
const EXEMPT = '\0exempt';

/**
 * The counter key of rule `name` for the library's identity (its context identity is the rule's
 * name; its field identity `<field>:<identifier>`). Neither addresses nor e-mails appear in keys.
 */
function counterKey(name: string, identity: Identity): string {
  return `${name}:${createHash('sha256').update(`${identity.contextIdentity}\0${identity.fieldIdentity}`).digest('base64url')}`;
}

class CountingStore extends Store {
  constructor(
    private readonly name: string,
    private readonly limit: RateLimit,
    /** runtime.rateLimits (fails open by itself) or runtime.rateLimitsFailClosed (throws while Redis is away). */
    private readonly counter: RateLimitStore,
    private readonly runtime: GatewayRuntime,
  ) {
    super();
  }

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    if (identity.fieldIdentity.endsWith(EXEMPT)) return [];
    const key = counterKey(this.name, identity);
    let decision: Awaited<ReturnType<RateLimitStore['hit']>>;
    try {
      decision = await this.counter.hit(key, this.limit.max, this.limit.windowMs);
    } catch (error) {
      this.runtime.sessionStoreHealth.failed(error);
      throw gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error });
    }
    if (!decision.allowed) throw overLimit(this.runtime, this.name, decision);
    return [];
  }

  setForIdentity(): Promise<void> {
    return Promise.resolve();
  }
}

const emailOf = (args: Record<string, unknown>) => (typeof args.email === 'string' ? args.email.trim().toLowerCase() : '');
const window = (limit: RateLimit) => `${Math.round(limit.windowMs / 1000)}s`;

export interface RateLimitsOptions {
  readonly runtime: GatewayRuntime;
}

export function useRateLimits({ runtime }: RateLimitsOptions): Plugin<GatewayContext>[] {
  const { limits } = runtime.config;
  const address = (context: GatewayContext) => context.state.clientAddress ?? 'unknown';
  const rule = (name: string, limit: RateLimit, counter: RateLimitStore, config: { type: string; field: string; identifyFn: (context: GatewayContext, args: Record<string, unknown>) => string }) =>
    useRateLimiter({
      identifyFn: () => name,
      store: new CountingStore(name, limit, counter, runtime),
      configByField: [{ ...config, identifyFn: (context, args) => config.identifyFn(context as GatewayContext, args), max: limit.max, window: window(limit) }],
    }) as unknown as Plugin<GatewayContext>;

  return [
    rule('login-email', limits.login, runtime.rateLimitsFailClosed, {
      type: 'Mutation',
      field: 'login',
      identifyFn: (context, args) => `${address(context)}\0${emailOf(args)}`,
    }),
    rule('login-address', limits.loginPerAddress, runtime.rateLimitsFailClosed, {
      type: 'Mutation',
      field: 'login',
      identifyFn: (context) => address(context),
    }),
  ].map(onlyForLogin).concat(useSessionRateLimit(runtime));
}

/** Runs a login rule only for operations that select `login` (a root mutation field). */
function onlyForLogin(plugin: Plugin<GatewayContext>): Plugin<GatewayContext> {
  const onExecute = plugin.onExecute;
  if (!onExecute) return plugin;
  return {
    ...plugin,
    onExecute(payload) {
      // Found once by useSessionAuth. Without a selectable operation graphql-js refuses the
      // document; the library looks anyway.
      const executed = (payload.args.contextValue as GatewayContext).state.executed;
      if (executed && executed.operation.operation !== OperationTypeNode.MUTATION) return;
      if (executed && !executed.fields.some((field) => field.name.value === 'login')) return;
      return onExecute(payload);
    },
  };
}

/**
 * Every root field (each field node, aliases included, as the library counted them) per browser
 * session, under the keys the library's `session` rule used. Fails open with runtime.rateLimits.
 */
function useSessionRateLimit(runtime: GatewayRuntime): Plugin<GatewayContext> {
  const limit = runtime.config.limits.session;
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GatewayContext;
      const executed = context.state.executed;
      if (context.identity?.kind !== 'session' || !executed) return;
      const identifier = context.identity.session.key;
      const decisions = await Promise.all(executed.fields.map((field) => runtime.rateLimits.hit(counterKey('session', { contextIdentity: 'session', fieldIdentity: `${field.name.value}:${identifier}` }), limit.max, limit.windowMs)));
      const refused = decisions.filter((decision) => !decision.allowed);
      // The longest wait, so a client that honours Retry-After gets every field through.
      if (refused.length) setResultAndStopExecution({ errors: [overLimit(runtime, 'session', refused.reduce((a, b) => (b.retryAfterMs > a.retryAfterMs ? b : a)))] });
    },
  };
}
