/**
 * An upstream-only operation executed as one upstream call: the planned document and the client's
 * variables and operation name, sent with the identity's credential (identity/brokered-fetch.ts:
 * rotation, 401 handling, the timeout and the failure codes as on Mesh's path). The upstream's
 * answer becomes the execution result as Mesh's delegation would give it: the upstream's errors as
 * GraphQL errors at their paths (the error mapping then treats them as on Mesh's path), a failure
 * as one error per root field. An answer without errors comes with the upstream's bytes, which
 * the fast path's plugin sends as they came instead of serialising the result again.
 */
import { getDirectiveValues, GraphQLError, GraphQLIncludeDirective, GraphQLSkipDirective, OperationTypeNode, type ExecutionResult, type FieldNode } from 'graphql';
import { gatewayError, GatewayError } from '../errors';
import type { RequestIdentity } from '../identity/strategy';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import { brokeredFetch } from '../identity/brokered-fetch';
import { bodyText, type UpstreamFetch } from '../upstream/fetch';
import type { UpstreamOutcomes } from '../upstream/outcome';
import type { UpstreamTarget } from '../upstream/target';
import type { ForwardPlan } from './plans';

export interface ForwardedCall {
  readonly request: Request;
  readonly identity: RequestIdentity | undefined;
  readonly upstream: UpstreamTarget;
  /** As the client sent them (only the declared ones are sent upstream). */
  readonly variables: unknown;
  /** As graphql-js coerced them (for @skip/@include). */
  readonly coerced: Readonly<Record<string, unknown>>;
  readonly operationName: string | null | undefined;
}

/** The execution result, and the upstream's bytes when they are exactly its JSON answer. */
export interface ForwardedAnswer {
  readonly result: ExecutionResult;
  readonly bytes?: string;
}

/** What the upstream answered: its status and body text. */
interface UpstreamAnswer {
  readonly status: number;
  readonly text: string;
}

const HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  accept: 'application/graphql-response+json, application/json',
};

type Path = readonly (string | number)[];

function pathOf(value: unknown): Path | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.every((part) => typeof part === 'string' || typeof part === 'number') ? value : undefined;
}

/** Whether a root field is executed, as its @skip and @include say. */
function included(node: FieldNode, variables: Readonly<Record<string, unknown>>): boolean {
  if (!node.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, node, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}

/** The result of a call that failed: each root field null (all of `data` if one is non-null), one error each. */
function failedResult(plan: ForwardPlan, call: ForwardedCall, error: GatewayError): ExecutionResult {
  const roots = plan.roots.filter((root) => included(root.node, call.coerced));
  const keys = [...new Set(roots.map((root) => root.key))];
  const data = roots.some((root) => root.nonNull) ? null : Object.fromEntries(keys.map((key) => [key, null]));
  return { data, errors: keys.map((key) => new GraphQLError(error.message, { path: [key], originalError: error })) };
}

/** The upstream's GraphQL answer as an execution result; undefined when it is not one. */
function resultOf(plan: ForwardPlan, answer: UpstreamAnswer): ForwardedAnswer | undefined {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { data, errors } = body as { data?: unknown; errors?: unknown };
  if (data !== undefined && data !== null && (typeof data !== 'object' || Array.isArray(data))) return undefined;
  if (errors !== undefined && !Array.isArray(errors)) return undefined;
  if (data === undefined && !errors?.length) return undefined;
  // Root keys the operation did not ask for are not passed on (Mesh's execution drops them too).
  const asked = data === undefined || data === null || Object.keys(data).every((key) => plan.responseKeys.has(key));
  const own = asked ? data : Object.fromEntries(Object.entries(data).filter(([key]) => plan.responseKeys.has(key)));
  if (!errors?.length) {
    // Nothing to map: the upstream's bytes are the answer when they hold exactly `data`.
    const result: ExecutionResult = { data: own as ExecutionResult['data'] };
    return asked && Object.keys(body).length === 1 && answer.status === 200 ? { result, bytes: answer.text } : { result };
  }
  const firstKey = plan.roots[0]?.key ?? 'unknown';
  return {
    result: {
      ...(own === undefined ? {} : { data: own as ExecutionResult['data'] }),
      errors: errors.map((raw: unknown) => {
        const { message, path } = (typeof raw === 'object' && raw !== null ? raw : {}) as { message?: unknown; path?: unknown };
        // An error of the whole operation is placed on its first root field, as delegation does.
        return new GraphQLError(typeof message === 'string' ? message : 'Unknown upstream error', { path: pathOf(path) ?? [firstKey] });
      }),
    },
  };
}

/** Only the operation's declared variables go upstream. */
function declared(plan: ForwardPlan, variables: unknown): Record<string, unknown> | undefined {
  if (plan.variableNames.length === 0 || typeof variables !== 'object' || variables === null) return undefined;
  const given = variables as Record<string, unknown>;
  const sent: Record<string, unknown> = {};
  for (const name of plan.variableNames) if (name in given) sent[name] = given[name];
  return sent;
}

export interface Forwarder {
  forward(plan: ForwardPlan, call: ForwardedCall): Promise<ForwardedAnswer>;
}

export interface ForwarderOptions {
  readonly upstreamFetch: UpstreamFetch;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  /** Each request's upstream outcome (upstream/outcome.ts). */
  readonly outcomes: UpstreamOutcomes;
}

/** One upstream call and the requests waiting for it: it is aborted when the last of them goes away. */
interface SharedCall {
  readonly answer: Promise<UpstreamAnswer>;
  readonly controller: AbortController;
  waiting: number;
}

/** `signal` (the client's request) joins the call: when every waiting request was aborted, so is the call. */
function join(shared: SharedCall, signal: AbortSignal): void {
  shared.waiting++;
  const leave = () => {
    if (--shared.waiting === 0) shared.controller.abort(signal.reason);
  };
  if (signal.aborted) return leave();
  signal.addEventListener('abort', leave, { once: true });
  const done = () => signal.removeEventListener('abort', leave);
  shared.answer.then(done, done);
}

export function createForwarder({ upstreamFetch, log, metrics, outcomes }: ForwarderOptions): Forwarder {
  /** Identical queries of one identity in flight at once share one upstream call (as Mesh's executor). */
  const inFlight = new Map<string, SharedCall>();

  // A client that goes away aborts its upstream call, as on Mesh's path (the request's signal).
  const callUpstream = async (plan: ForwardPlan, call: ForwardedCall, body: string, signal: AbortSignal): Promise<UpstreamAnswer> => {
    const response = await brokeredFetch(upstreamFetch, call.upstream.graphqlUrl, { method: 'POST', headers: HEADERS, body, signal }, {
      request: call.request, identity: call.identity, upstream: call.upstream, operation: plan.label, outcomes,
      // The plan knows its operation: a query may be sent again, a mutation never.
      ...(plan.kind === OperationTypeNode.QUERY ? { retry: 'safe' as const } : {}),
    });
    return { status: response.status, text: await bodyText(response) };
  };

  const answerOf = (plan: ForwardPlan, call: ForwardedCall, body: string): Promise<UpstreamAnswer> => {
    // A mutation runs to its end even when its client goes away (as on Mesh's path): cut off midway,
    // it may or may not have been applied, where finished its answer is kept for the client's retry.
    if (plan.kind !== OperationTypeNode.QUERY) return callUpstream(plan, call, body, new AbortController().signal);
    const key = `${call.identity?.key ?? ''}\0${call.upstream.graphqlUrl}\0${body}`;
    const shared = inFlight.get(key);
    // A call aborted for requests that went away is never joined: it is about to fail.
    if (shared && !shared.controller.signal.aborted) {
      join(shared, call.request.signal);
      // The call is another request's: this one records its outcome too.
      return shared.answer.then(
        (answer) => {
          outcomes.noteAnswered(call.request);
          return answer;
        },
        (error: unknown) => {
          if (error instanceof GatewayError) outcomes.noteFailure(call.request, error);
          throw error;
        },
      );
    }
    const controller = new AbortController();
    const own: SharedCall = { answer: callUpstream(plan, call, body, controller.signal), controller, waiting: 0 };
    inFlight.set(key, own);
    // Forgotten when it settles, or at once when aborted (before joining: a request already gone aborts it there).
    const forget = () => {
      own.controller.signal.removeEventListener('abort', forget);
      if (inFlight.get(key) === own) inFlight.delete(key);
    };
    own.controller.signal.addEventListener('abort', forget, { once: true });
    own.answer.then(forget, forget);
    join(own, call.request.signal);
    return own.answer;
  };

  return {
    async forward(plan, call) {
      metrics.forwarded(plan.kind);
      const body = JSON.stringify({ query: plan.query, variables: declared(plan, call.variables), operationName: call.operationName ?? undefined });
      let answer: UpstreamAnswer;
      try {
        answer = await answerOf(plan, call, body);
      } catch (error) {
        if (error instanceof GatewayError) return { result: failedResult(plan, call, error) };
        // Not a failure the upstream client names (a bug, or a body that cannot be read): logged, never shown.
        log.unexpectedError({ error, operation: plan.label });
        return { result: failedResult(plan, call, outcomes.noteFailure(call.request, gatewayError('UPSTREAM_ERROR'))) };
      }
      const forwarded = resultOf(plan, answer);
      if (forwarded) return forwarded;
      log.unexpectedError({ error: new Error(`upstream answer not usable (status ${answer.status})`), operation: plan.label });
      return { result: failedResult(plan, call, outcomes.noteFailure(call.request, gatewayError('UPSTREAM_ERROR'))) };
    },
  };
}
