/**
 * Definitions hits without GraphQL execution or re-serialisation. A query that selects only
 * `statementDefinitions` is answered, while the definitions held in process memory are fresh, from
 * the bytes of an earlier answer to the same document, variables and operation name over the same
 * definitions: executing the ~20 KB answer through Mesh's delegation and serialising it again
 * was most of a hit's cost (bench/README.md has the profile).
 *
 * It runs after useIdentity and the rate limits (their refusals stop execution before it), only
 * for identities the definitions cache serves (cacheTrusted), and keeps answers per payload
 * object: a refresh replaces the payload, so old answers are never served and are collected.
 * The bytes are written through Yoga's public onResultProcess/setResultProcessor
 * (request/raw-json-answers.ts), kept by this plugin instance for each stored result.
 */
import { OperationTypeNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { rawJsonAnswers } from '../request/raw-json-answers';
import type { IdentityContext } from '../identity/use-identity';
import type { GatewayMetrics } from '../observability/metrics';
import type { DefinitionsCache, DefinitionsPayload } from './definitions-cache';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';

interface Answer {
  /** The result, answered with `json` (raw.keep) as long as it is held here. */
  readonly result: ExecutionResult;
  readonly json: string;
}

/** Per payload: answers by document, variables and operation name (bounded by count and size). */
const MAX_ANSWERS = 64;
const MAX_BYTES = 32 * 1024 * 1024;
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

type ParamsContext = { readonly params?: { readonly query?: string; readonly variables?: unknown; readonly operationName?: string | null } };

export interface DefinitionsAnswersOptions {
  readonly definitions: DefinitionsCache;
  readonly metrics: GatewayMetrics;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
}

export function useDefinitionsAnswers({ definitions, metrics, operations }: DefinitionsAnswersOptions): Plugin<IdentityContext> {
  const byPayload = new WeakMap<DefinitionsPayload, LRUCache<string, Answer>>();
  const raw = rawJsonAnswers();

  const answersOf = (payload: DefinitionsPayload) => {
    let answers = byPayload.get(payload);
    if (!answers) byPayload.set(payload, (answers = new LRUCache<string, Answer>({ max: MAX_ANSWERS, maxSize: MAX_BYTES, maxEntrySize: MAX_ANSWER_BYTES, sizeCalculation: (answer) => 2 * answer.json.length || 1 })));
    return answers;
  };

  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as IdentityContext & ParamsContext;
      if (!context.upstream || !context.identity?.cacheTrusted) return;
      const query = context.params?.query;
      if (typeof query !== 'string') return;
      // The operation and its root fields, found once (request/executed.ts).
      const executed = operations.get(context.request);
      if (executed?.operation.operation !== OperationTypeNode.QUERY) return;
      const fields = executed.fields;
      if (fields.length === 0 || fields.some((field) => field.name.value !== 'statementDefinitions')) return;
      const payload = definitions.freshLocal(context.upstream);
      if (!payload) return;

      const key = `${JSON.stringify(context.params?.operationName ?? null)}\0${JSON.stringify(context.params?.variables ?? null)}\0${query}`;
      const answers = answersOf(payload);
      const answer = answers.get(key);
      if (answer) {
        for (let index = 0; index < fields.length; index++) metrics.cacheLookup('definitions', 'hit');
        setResultAndStopExecution(answer.result);
        return;
      }
      return {
        onExecuteDone({ result, setResult }) {
          // Only a plain, error-free answer computed from this very payload is kept.
          if (Symbol.asyncIterator in result || result.errors?.length || result.extensions) return;
          if (definitions.freshLocal(context.upstream) !== payload) return;
          const json = JSON.stringify(result);
          // A copy of its own: whatever a later hook does to this request's result, the stored one keeps its bytes.
          const stored = { ...result };
          raw.keep(stored, json);
          answers.set(key, { result: stored, json });
          // This request is answered with the same bytes (serialised once).
          setResult(stored);
        },
      };
    },
    onResultProcess: raw.onResultProcess,
  };
}
