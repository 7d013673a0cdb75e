/**
 * RATE_LIMIT_SESSION on executed GraphQL operations, after useIdentity found who acts: root
 * fields in total per identity (a browser session, a drop-in front credential), an operation of n
 * root fields (aliases included) weighing n. A count per field name would multiply the limit by the
 * number of fields in the schema. It is counted directly from the root fields found once (request/executed.ts):
 * @envelop/rate-limiter visits the whole document with TypeInfo per request, a large share of a
 * pass-through request's CPU (bench/README.md); the anonymous limit counts the same way
 * (use-anonymous-limit.ts). Fails open (the counters: while Redis is away each replica counts
 * for itself). Service accounts have their own `requestsPerMinute`, checked with their API key.
 *
 * One of the gateway's execute steps (src/gateway/execute-steps.ts): the hot path asks the same
 * plugin's `hit`, which counts once per request, so a request the hot path hands to the pipeline
 * (refused, or answered with errors) is not counted twice.
 */
import type { Plugin } from 'graphql-yoga';
import type { RateLimit } from '../config';
import type { IdentityContext } from '../identity/use-identity';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import { overLimit, type RateDecision, type RateLimitStore } from './rate-limiter';
import { RequestSlot } from '../request/slot';
import type { ExecutedOperation } from '../request/executed';

export interface RateLimitsOptions {
  readonly limit: RateLimit;
  /** Shared by replicas, failing open. */
  readonly counters: RateLimitStore;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
}

export interface RateLimitsPlugin extends Plugin<IdentityContext> {
  /**
   * The request's hit on the identity's counter `key`, an operation of `weight` root fields:
   * counted the first time it is asked for the request, by whichever caller asks first.
   */
  hit(request: Request, key: string, weight: number): Promise<RateDecision>;
}

export function useRateLimits({ limit, counters, log, metrics, operations }: RateLimitsOptions): RateLimitsPlugin {
  const decisions = new RequestSlot<Promise<RateDecision>>();
  const hit = (request: Request, key: string, weight: number) => decisions.ensure(request, () => counters.hit(key, limit.max, limit.windowMs, weight));
  return {
    hit,
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue;
      const executed = operations.get(context.request);
      // The identity's counter (never a session id, token or uid in clear); none for a service
      // account, which has a limit of its own.
      const key = context.identity?.rateLimitKey;
      if (!executed || key === undefined) return;
      const decision = await hit(context.request, key, executed.fields.length);
      if (!decision.allowed) setResultAndStopExecution({ errors: [overLimit({ log, metrics }, 'session', decision)] });
    },
  };
}
