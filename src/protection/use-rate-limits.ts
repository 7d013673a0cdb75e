/**
 * RATE_LIMIT_SESSION on executed GraphQL operations, after useSessionAuth found who acts: root
 * fields in total per identity (a browser session, a drop-in front credential), an operation of n
 * root fields (aliases included) weighing n. A count per field name would multiply the limit by the
 * number of fields in the schema. It is counted directly from the root fields useSessionAuth found:
 * @envelop/rate-limiter visits the whole document with TypeInfo per request, 8 % of a pass-through
 * request's CPU (npm run bench profile); the library serves the anonymous limit instead
 * (use-anonymous-limit.ts). Fails open (runtime.rateLimits: while Redis is away each replica counts
 * for itself). Service accounts have their own `requestsPerMinute`, checked with their API key.
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext, RequestIdentity } from '../gateway/context';
import type { GatewayRuntime } from '../gateway/runtime';
import { overLimit } from './rate-limiter';

export interface RateLimitsOptions {
  readonly runtime: GatewayRuntime;
}

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
  const { session } = runtime.config.limits;
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GatewayContext;
      const executed = context.state.executed;
      if (!executed || !context.identity) return;
      const key = identityKey(context.identity, context);
      if (key === undefined) return;
      const decision = await runtime.rateLimits.hit(key, session.max, session.windowMs, executed.fields.length);
      if (!decision.allowed) setResultAndStopExecution({ errors: [overLimit(runtime, 'session', decision)] });
    },
  };
}
