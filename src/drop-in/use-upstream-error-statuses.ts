/**
 * The drop-in front answers documents the upstream's GraphQL server refuses (parse and validation
 * errors) with status 200, as the upstream does; the gateway's own endpoint answers them with 400.
 * Placed after the error mapping, whose codes and messages it keeps.
 */
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { clientError } from '../errors';

type ResultLike = { errors?: readonly GraphQLError[] } & Record<string, unknown>;

function asUpstreamWould(error: GraphQLError): GraphQLError {
  const code = error.extensions.code;
  if (code !== 'GRAPHQL_PARSE_FAILED' && code !== 'GRAPHQL_VALIDATION_FAILED') return error;
  return clientError(code, error.message, error.path, undefined, 200);
}

function withUpstreamStatuses(result: ResultLike): ResultLike {
  return result.errors?.length ? { ...result, errors: result.errors.map(asUpstreamWould) } : result;
}

export function useUpstreamErrorStatuses(): Plugin {
  return {
    onResultProcess(payload) {
      const { result } = payload;
      type Input = Parameters<typeof payload.setResult>[0];
      if (Array.isArray(result)) {
        payload.setResult(result.map((entry) => withUpstreamStatuses(entry as ResultLike)) as Input);
      } else if (!(Symbol.asyncIterator in result)) {
        payload.setResult(withUpstreamStatuses(result as ResultLike) as Input);
      }
    },
  };
}
