/**
 * The last word on every error a client sees. Mesh passes upstream failures through as GraphQL
 * errors that carry the upstream URL, connection errors and response bodies; none of that leaves.
 * Each error becomes one of the contract's codes with a message written here; the cause is logged.
 * (The upstream's own `errors` lists inside payloads are data, not errors, and are untouched.)
 */
import { GraphQLError, Kind } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { clientError, DEFAULT_MESSAGES, findGatewayError, isErrorCode } from '../errors';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';
import type { UpstreamOutcomes } from '../upstream/outcome';

export interface ErrorMappingOptions {
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** Each request's upstream outcome (upstream/outcome.ts). */
  readonly outcomes: UpstreamOutcomes;
}

/** Codes the HTTP executor puts on errors about the upstream's answer. */
const EXECUTOR_CODES = new Set(['SUBREQUEST_HTTP_ERROR', 'RESPONSE_VALIDATION_FAILED', 'DOWNSTREAM_SERVICE_ERROR']);
const URLISH = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;

type ResultLike = { errors?: readonly GraphQLError[] } & Record<string, unknown>;

/** The deepest `originalError` (Mesh and graphql-js wrap several times). */
function innermostError(error: Error): Error {
  let current = error;
  for (let depth = 0; depth < 8; depth++) {
    const next = (current as { originalError?: unknown }).originalError;
    if (!(next instanceof Error)) break;
    current = next;
  }
  return current;
}

export function useErrorMapping({ log, metrics, operations, outcomes }: ErrorMappingOptions): Plugin {
  const mapError = (error: GraphQLError, request: Request): GraphQLError => {
    const operation = operations.get(request)?.names;
    // The gateway's own refusals, the query limits' among them (use-query-limits.ts): each carries its code from where it was made.
    const own = findGatewayError(error);
    if (own) {
      const http = own.extensions.http as { status: number; headers?: Record<string, string> };
      return clientError(own.code, own.message, error.path, http.headers, http.status);
    }
    const extensions = error.extensions;
    const code = extensions.code;
    const httpStatus = (extensions.http as { status?: unknown } | undefined)?.status;
    const safeMessage = error.message.replace(URLISH, '[url]');

    const fromExecutor = (typeof code === 'string' && EXECUTOR_CODES.has(code)) || 'request' in extensions || 'response' in extensions;
    if (fromExecutor) {
      // Mesh's delegation drops `originalError`: what the broker recorded says what happened.
      const recorded = outcomes.of(request).failure;
      if (recorded) {
        // Its headers too: an open circuit's Retry-After must reach the client.
        const http = recorded.extensions.http as { status: number; headers?: Record<string, string> };
        return clientError(recorded.code, recorded.message, error.path, http.headers, http.status);
      }
      log.unexpectedError({ error: new Error(`upstream answer not usable (${String(code)})`), operation });
      return clientError('UPSTREAM_ERROR', DEFAULT_MESSAGES.UPSTREAM_ERROR, error.path);
    }

    // Before execution (no path): Yoga's request errors, parse, validation and variable errors.
    if (!error.path) {
      if (httpStatus === 413) return clientError('PAYLOAD_TOO_LARGE', DEFAULT_MESSAGES.PAYLOAD_TOO_LARGE);
      if (code === 'GRAPHQL_PARSE_FAILED' || code === 'GRAPHQL_VALIDATION_FAILED') return clientError(code, safeMessage);
      // Variables that do not fit their declared types are a validation failure of the request:
      // graphql-js's coercion errors point at the variable's definition (GraphQLError.nodes).
      if (error.nodes?.some((node) => node.kind === Kind.VARIABLE_DEFINITION)) return clientError('GRAPHQL_VALIDATION_FAILED', safeMessage);
      if (typeof httpStatus === 'number' && httpStatus >= 400 && httpStatus < 500) {
        return clientError('BAD_REQUEST', safeMessage, undefined, undefined, httpStatus);
      }
      if (isErrorCode(code)) return clientError(code, safeMessage);
      const innermost = innermostError(error);
      if (innermost instanceof GraphQLError) {
        return clientError('GRAPHQL_VALIDATION_FAILED', safeMessage);
      }
    } else if (outcomes.of(request).answered && innermostError(error) instanceof GraphQLError) {
      // A top-level error in the upstream's own GraphQL answer: its message is meant for API clients.
      return clientError('UPSTREAM_ERROR', safeMessage, error.path);
    }
    log.unexpectedError({ error: innermostError(error), operation });
    return clientError('INTERNAL_SERVER_ERROR', DEFAULT_MESSAGES.INTERNAL_SERVER_ERROR, error.path);
  };

  const mapResult = (result: ResultLike, request: Request): ResultLike => {
    if (!result.errors?.length) return result;
    const errors = result.errors.map((error) => mapError(error instanceof GraphQLError ? error : new GraphQLError(String((error as Error).message), { originalError: error as Error }), request));
    for (const error of errors) metrics.graphqlError(String(error.extensions.code));
    return { ...result, errors };
  };

  return {
    onResultProcess(payload) {
      const { request, result } = payload;
      type Input = Parameters<typeof payload.setResult>[0];
      if (Array.isArray(result)) {
        payload.setResult(result.map((entry) => mapResult(entry as ResultLike, request)) as Input);
      } else if (!(Symbol.asyncIterator in result)) {
        payload.setResult(mapResult(result as ResultLike, request) as Input);
      }
    },
  };
}
