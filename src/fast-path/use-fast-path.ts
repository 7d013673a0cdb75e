/**
 * The fast path: an operation whose plan (plans.ts) says it is the upstream's own is executed as
 * one upstream call (forward.ts) instead of through Mesh's delegation, which re-plans and
 * re-visits every operation on every call. It only replaces execution: it runs after the identity,
 * the CSRF check, the limits, the definitions answers and the cache invalidation, and before the
 * read cache, whose lookup then wraps it (a hit never reaches the upstream; a miss stores the
 * forwarded answer). Mixed and gateway-only operations, and those selecting PDFs, keep Mesh's
 * execution.
 *
 * An answer without errors is written as the upstream's bytes, not serialised again: the bytes
 * are kept here by result object, and Yoga's public result-processor hook (onResultProcess with
 * setResultProcessor) writes them when Yoga chose its JSON processor and the result is still the
 * forwarded one. Every other hook (error mapping, access log, metrics, cookies, tracing) runs as
 * for any answer; a result another plugin replaced or extended is serialised by Yoga as usual.
 */
import { getVariableValues, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { processRegularResult, type Plugin } from 'graphql-yoga';
import { executedOf } from '../gateway/executed';
import type { IdentityContext } from '../identity/use-identity';
import type { Forwarder } from './forward';
import { jsonMediaTypeOf } from './media-type';
import type { DocumentPlans } from './plans';

export interface FastPathOptions {
  readonly plans: DocumentPlans;
  readonly forwarder: Forwarder;
}

export function useFastPath({ plans, forwarder }: FastPathOptions): Plugin<IdentityContext> {
  /** Forwarded results whose upstream bytes are the answer; gone with the result. */
  const bytesOf = new WeakMap<object, string>();
  const stillForwarded = (result: unknown): string | undefined => {
    if (typeof result !== 'object' || result === null) return undefined;
    const bytes = bytesOf.get(result);
    // Nothing added in place since (extensions, errors): the bytes hold exactly `data`.
    return bytes !== undefined && Object.keys(result).length === 1 ? bytes : undefined;
  };

  return {
    onExecute({ args, setExecuteFn }) {
      const context = args.contextValue;
      // Only an operation the pipeline found (gateway/executed.ts), and so identified and limited.
      const executed = executedOf(context.request);
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
        const { result, bytes } = await forwarder.forward(plan, call);
        if (bytes !== undefined) bytesOf.set(result, bytes);
        return result;
      });
    },
    onResultProcess(payload) {
      // Yoga chose its JSON processor (not SSE or multipart) for a forwarded result.
      if (payload.resultProcessor !== processRegularResult || stillForwarded(payload.result) === undefined) return;
      const mediaType = jsonMediaTypeOf(payload.request);
      if (!mediaType) return;
      payload.setResultProcessor((processed, fetchAPI, accepted) => {
        // Read when Yoga writes: a later hook may have replaced the result.
        const bytes = stillForwarded(processed);
        if (bytes === undefined) return processRegularResult(processed, fetchAPI, accepted);
        // What processRegularResult answers for a result without errors or extensions, with these bytes.
        return new fetchAPI.Response(bytes, { status: 200, headers: { 'Content-Type': `${accepted}; charset=utf-8` } });
      }, mediaType);
    },
  };
}
