/**
 * Definitions hits without GraphQL execution or re-serialisation, for both callers: the Yoga
 * pipeline's useDefinitionsAnswers and the hot path (src/hot-path/hot-path.ts). A query that selects
 * only `statementDefinitions` is answered, while the definitions held in process memory are fresh,
 * from the bytes of an earlier answer to the same document, variables and operation name over the
 * same definitions: executing the ~20 KB answer through Mesh's delegation and serialising it again
 * was most of a hit's cost (bench/README.md has the profile).
 *
 * Only for identities the definitions cache serves (cacheTrusted), after the identity and the rate
 * limits. Answers are kept per payload object: a refresh replaces the payload, so old answers are
 * never served and are collected. Only the pipeline stores answers (a miss is executed there).
 */
import { OperationTypeNode, type ExecutionResult } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { RequestIdentity } from '../identity/strategy';
import type { GatewayMetrics } from '../observability/metrics';
import type { ExecutedOperation } from '../request/executed';
import type { UpstreamTarget } from '../upstream/target';
import type { DefinitionsCache, DefinitionsPayload } from './definitions-cache';

export interface DefinitionsAnswer {
  /** The result, answered with `json` as long as it is held here. */
  readonly result: ExecutionResult;
  readonly json: string;
}

/** What a request asks: its query text, variables and operation name, as it sent them. */
export interface DefinitionsParams {
  readonly query: string;
  readonly variables: unknown;
  readonly operationName: string | null | undefined;
}

/** Per payload: answers by document, variables and operation name (bounded by count and size). */
const MAX_ANSWERS = 64;
const MAX_BYTES = 32 * 1024 * 1024;
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface DefinitionsAnswers {
  /** Whether this request is a definitions read an answer may serve. */
  serves(identity: RequestIdentity | undefined, executed: ExecutedOperation | undefined): boolean;
  /** The answer kept for these params over the fresh definitions, counted as hits; undefined when there is none. */
  hit(upstream: UpstreamTarget, params: DefinitionsParams, executed: ExecutedOperation): DefinitionsAnswer | undefined;
  /**
   * The payload a miss is executed over, and the store of its answer: only a plain, error-free
   * result computed from that very payload is kept. Undefined while the definitions are not fresh.
   */
  miss(upstream: UpstreamTarget, params: DefinitionsParams): ((result: ExecutionResult) => DefinitionsAnswer | undefined) | undefined;
}

export function createDefinitionsAnswers({ definitions, metrics }: { readonly definitions: DefinitionsCache; readonly metrics: GatewayMetrics }): DefinitionsAnswers {
  const byPayload = new WeakMap<DefinitionsPayload, LRUCache<string, DefinitionsAnswer>>();
  const answersOf = (payload: DefinitionsPayload) => {
    let answers = byPayload.get(payload);
    if (!answers) byPayload.set(payload, (answers = new LRUCache<string, DefinitionsAnswer>({ max: MAX_ANSWERS, maxSize: MAX_BYTES, maxEntrySize: MAX_ANSWER_BYTES, sizeCalculation: (answer) => 2 * answer.json.length || 1 })));
    return answers;
  };
  const keyOf = ({ query, variables, operationName }: DefinitionsParams) => `${JSON.stringify(operationName ?? null)}\0${JSON.stringify(variables ?? null)}\0${query}`;
  return {
    serves(identity, executed) {
      if (!identity?.cacheTrusted || executed?.operation.operation !== OperationTypeNode.QUERY) return false;
      const fields = executed.fields;
      return fields.length > 0 && fields.every((field) => field.name.value === 'statementDefinitions');
    },
    hit(upstream, params, executed) {
      const payload = definitions.freshLocal(upstream);
      const answer = payload && answersOf(payload).get(keyOf(params));
      if (!answer) return undefined;
      for (let index = 0; index < executed.fields.length; index++) metrics.cacheLookup('definitions', 'hit');
      return answer;
    },
    miss(upstream, params) {
      const payload = definitions.freshLocal(upstream);
      if (!payload) return undefined;
      return (result) => {
        if (result.errors?.length || result.extensions) return undefined;
        if (definitions.freshLocal(upstream) !== payload) return undefined;
        // A copy of its own: whatever a later hook does to the request's result, the stored one keeps its bytes.
        const answer = { result: { ...result }, json: JSON.stringify(result) };
        answersOf(payload).set(keyOf(params), answer);
        return answer;
      };
    },
  };
}
