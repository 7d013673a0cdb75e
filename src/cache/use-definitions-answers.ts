/**
 * Definitions hits without GraphQL execution or re-serialisation. A query that selects only
 * `statementDefinitions` is answered, while the definitions held in process memory are fresh, from
 * the bytes of an earlier answer to the same document, variables and operation name over the same
 * definitions: executing the ~20 KB answer through Mesh's delegation and serialising it again
 * was most of a hit's cost (bench/README.md has the profile).
 *
 * It runs after useIdentity and the rate limits (their refusals stop execution before it); the
 * steps are definitions-answers.ts's, shared with the hot path (src/gateway/execute-steps.ts),
 * which answers a hit and hands a miss to the pipeline: a lookup in this process's memory, asked
 * again there, with nothing counted for a miss. The bytes are written through
 * Yoga's public onResultProcess/setResultProcessor (request/raw-json-answers.ts), kept by this
 * plugin instance for each result it answers with.
 */
import type { Plugin } from 'graphql-yoga';
import { rawJsonAnswers } from '../request/raw-json-answers';
import type { IdentityContext } from '../identity/use-identity';
import type { DefinitionsAnswers } from './definitions-answers';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';

type ParamsContext = { readonly params?: { readonly query?: string; readonly variables?: unknown; readonly operationName?: string | null } };

export interface DefinitionsAnswersOptions {
  /** The answers' steps (definitions-answers.ts), shared with the hot path where it has one. */
  readonly answers: DefinitionsAnswers;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
}

export function useDefinitionsAnswers({ answers, operations }: DefinitionsAnswersOptions): Plugin<IdentityContext> {
  const raw = rawJsonAnswers();
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as IdentityContext & ParamsContext;
      const query = context.params?.query;
      if (!context.upstream || typeof query !== 'string') return;
      // The operation and its root fields, found once (request/executed.ts).
      const executed = operations.get(context.request);
      if (!executed || !answers.serves(context.identity, executed)) return;
      const params = { query, variables: context.params?.variables, operationName: context.params?.operationName };
      const answer = answers.hit(context.upstream, params, executed);
      if (answer) {
        raw.keep(answer.result, answer.json);
        setResultAndStopExecution(answer.result);
        return;
      }
      const store = answers.miss(context.upstream, params);
      if (!store) return;
      return {
        onExecuteDone({ result, setResult }) {
          if (Symbol.asyncIterator in result) return;
          const stored = store(result);
          if (!stored) return;
          raw.keep(stored.result, stored.json);
          // This request is answered with the same bytes (serialised once).
          setResult(stored.result);
        },
      };
    },
    onResultProcess: raw.onResultProcess,
  };
}
