/**
 * The fast path: an operation whose plan (plans.ts) says it is the upstream's own is executed as
 * one upstream call (forward.ts) instead of through Mesh's delegation, which re-plans and
 * re-visits every operation on every call. It only replaces execution: it runs after the identity,
 * the CSRF check, the limits, the definitions answers and the cache invalidation, and before the
 * read cache, whose lookup then wraps it (a hit never reaches the upstream; a miss stores the
 * forwarded answer). Mixed and gateway-only operations, and those selecting PDFs, keep Mesh's
 * execution.
 *
 * An answer without errors is written as the upstream's bytes, not serialised again, through
 * Yoga's public onResultProcess/setResultProcessor (request/raw-json-answers.ts), the bytes kept by
 * this plugin instance.
 *
 * One of the gateway's execute steps (src/gateway/execute-steps.ts): the hot path calls the same
 * plugin's `forward`, which makes one upstream call per request, so a request the hot path hands to
 * the pipeline (an answer with errors, which the error mapping and the audit trail then read) is
 * answered by the call already made.
 */
import { getVariableValues, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { rawJsonAnswers } from '../request/raw-json-answers';
import type { IdentityContext } from '../identity/use-identity';
import type { ForwardedAnswer, ForwardedCall, Forwarder } from './forward';
import type { DocumentPlans, ForwardPlan } from './plans';
import type { ExecutedOperation } from '../request/executed';
import { RequestSlot } from '../request/slot';

export interface FastPathOptions {
  readonly plans: DocumentPlans;
  readonly forwarder: Forwarder;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
}

export interface FastPathPlugin extends Plugin<IdentityContext> {
  /** The request's upstream call, made the first time it is asked for the request (`call.request`), by whichever caller asks first. */
  forward(plan: ForwardPlan, call: ForwardedCall): Promise<ForwardedAnswer>;
}

export function useFastPath({ plans, forwarder, operations }: FastPathOptions): FastPathPlugin {
  /** Forwarded results whose upstream bytes are the answer. */
  const raw = rawJsonAnswers();
  const answers = new RequestSlot<Promise<ForwardedAnswer>>();
  const forward = (plan: ForwardPlan, call: ForwardedCall) => answers.ensure(call.request, () => forwarder.forward(plan, call));

  return {
    forward,
    onExecute({ args, setExecuteFn }) {
      const context = args.contextValue;
      // Only an operation the pipeline found (request/executed.ts), and so identified and limited.
      const executed = operations.get(context.request);
      const plan = executed && plans.planOf(executed);
      if (!plan) return;
      const variables: unknown = args.variableValues;
      // Variables that do not fit their types are refused here, with graphql-js's own errors.
      let coerced: Readonly<Record<string, unknown>> = {};
      if (plan.variableDefinitions.length > 0) {
        const values = getVariableValues(args.schema as GraphQLSchema, plan.variableDefinitions, (variables ?? {}) as Record<string, unknown>, { maxErrors: 50 });
        if (values.errors) {
          const errors = values.errors;
          setExecuteFn(() => ({ errors }));
          return;
        }
        coerced = values.coerced;
      }
      const operationName = args.operationName as string | null | undefined;
      // The identity and upstream are read now: useIdentity has set them.
      const call = { request: context.request, identity: context.identity, upstream: context.upstream, variables, coerced, operationName };
      setExecuteFn(async (): Promise<ExecutionResult> => {
        const { result, bytes } = await forward(plan, call);
        if (bytes !== undefined) raw.keep(result, bytes);
        return result;
      });
    },
    onResultProcess: raw.onResultProcess,
  };
}
