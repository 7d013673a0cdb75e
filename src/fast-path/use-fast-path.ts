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
 */
import { getVariableValues, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { rawJsonAnswers } from '../request/raw-json-answers';
import type { IdentityContext } from '../identity/use-identity';
import type { ForwardedAnswers, Forwarder } from './forward';
import type { HotDocuments } from './hot-documents';
import type { DocumentPlans } from './plans';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';

export interface FastPathOptions {
  readonly plans: DocumentPlans;
  readonly forwarder: Forwarder;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** The hot path's trusted documents: one executed here passed validation and the query limits. */
  readonly hot?: HotDocuments;
  /** The call the hot path made for a request it handed over. */
  readonly handedOver?: ForwardedAnswers;
}

export function useFastPath({ plans, forwarder, operations, hot, handedOver }: FastPathOptions): Plugin<IdentityContext> {
  /** Forwarded results whose upstream bytes are the answer. */
  const raw = rawJsonAnswers();

  return {
    onExecute({ args, setExecuteFn }) {
      const context = args.contextValue;
      // Only an operation the pipeline found (request/executed.ts), and so identified and limited.
      const executed = operations.get(context.request);
      const plan = executed && plans.planOf(executed);
      if (!plan) return;
      if (hot) {
        const text = (context as { params?: { query?: unknown } }).params?.query;
        hot.executed(executed, plan, typeof text === 'string' ? text : undefined);
      }
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
        const { result, bytes } = await (handedOver?.get(context.request) ?? forwarder.forward(plan, call));
        if (bytes !== undefined) raw.keep(result, bytes);
        return result;
      });
    },
    onResultProcess: raw.onResultProcess,
  };
}
