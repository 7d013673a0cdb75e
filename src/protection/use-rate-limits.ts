/**
 * Request-rate limits on executed GraphQL operations, after useSessionAuth found who acts:
 * - per identity (a browser session, a drop-in front credential): root fields in total
 *   (RATE_LIMIT_SESSION), an operation of n root fields (aliases included) weighing n. A count per
 *   field name would multiply the limit by the number of fields in the schema.
 * - without an identity (`confirmRegistration`, `session`, `__typename`, introspection where
 *   allowed): operations per client address, IPv6 by /64 (RATE_LIMIT_ANONYMOUS), so that
 *   confirmation tokens cannot be guessed at will. An operation of `login` fields only is left to
 *   the login limits (login-limits.ts, called by the resolver for each `login` field), which also
 *   serve the drop-in front's sign-in: a page's sign-in form is not limited twice.
 * Both fail open (runtime.rateLimits: while Redis is away each replica counts for itself), unlike
 * the login limits. Service accounts have their own `requestsPerMinute`, checked with their API key.
 *
 * Not @envelop/rate-limiter: its rules count per field, which fits none of these limits (a total
 * per identity, a count per operation, login counters that the REST sign-in shares).
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext, RequestIdentity } from '../plugins/context';
import type { GatewayRuntime } from '../runtime';
import { addressGroup } from './client-address';
import { overLimit } from './rate-limiter';

export interface RateLimitsOptions {
  readonly runtime: GatewayRuntime;
}

const LOGIN_ONLY = new Set(['login', '__typename']);
const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\0')).digest('base64url');

/** The identity's counter key: never a session id, token or uid in clear. */
function identityKey(identity: RequestIdentity, context: GatewayContext): string | undefined {
  switch (identity.kind) {
    case 'session':
      return `session:${digest(identity.session.key)}`;
    case 'drop-in':
      // One API client's credential, as a browser's session: its environment, uid and client.
      return `front:${digest(context.upstream.environment, identity.credential.uid, identity.credential.client)}`;
    case 'service-account':
      return undefined;
  }
}

export function useRateLimits({ runtime }: RateLimitsOptions): Plugin<GatewayContext> {
  const { session, anonymous } = runtime.config.limits;
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GatewayContext;
      const executed = context.state.executed;
      if (!executed) return;
      if (context.identity) {
        const key = identityKey(context.identity, context);
        if (key === undefined) return;
        const decision = await runtime.rateLimits.hit(key, session.max, session.windowMs, executed.fields.length);
        if (!decision.allowed) setResultAndStopExecution({ errors: [overLimit(runtime, 'session', decision)] });
        return;
      }
      // Only `login` (with `__typename` at most) is left out: another field beside it still counts,
      // or a throwaway `login` would let any guess through.
      const names = executed.fields.map((field) => field.name.value);
      if (names.includes('login') && names.every((name) => LOGIN_ONLY.has(name))) return;
      const address = addressGroup(context.state.clientAddress ?? 'unknown');
      const decision = await runtime.rateLimits.hit(`anonymous:${digest(address)}`, anonymous.max, anonymous.windowMs);
      if (!decision.allowed) setResultAndStopExecution({ errors: [overLimit(runtime, 'anonymous', decision)] });
    },
  };
}
