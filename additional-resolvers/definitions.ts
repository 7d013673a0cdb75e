/**
 * `statementDefinitions` through the definitions cache: one shared entry per environment, fetched
 * with every field (whatever this caller selected) and answered to any selection from it.
 */
import { getNamedType, isObjectType, type GraphQLObjectType, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import type { DefinitionsPayload } from '../src/cache/definitions-cache';
import { findGatewayError, gatewayError } from '../src/errors';
import type { GatewayContext } from '../src/gateway/context';

interface DefinitionsSdk {
  readonly StatementFilingService: {
    readonly Query: {
      statementDefinitions(options: { root: unknown; args: Record<string, never>; context: unknown; selectionSet: string }): Promise<DefinitionsPayload | Error | null>;
    };
  };
}

type ResolverContext = GatewayContext & DefinitionsSdk;

const selections = new WeakMap<GraphQLSchema, string>();

/** Every field of a type, recursively (the definitions are a tree of objects and scalars). */
function fullSelection(type: GraphQLObjectType, depth = 0): string {
  if (depth > 5) return '{ __typename }';
  const fields = Object.values(type.getFields())
    .filter((field) => field.args.every((arg) => arg.type.toString().endsWith('!') === false))
    .map((field) => {
      const named = getNamedType(field.type);
      return isObjectType(named) ? `${field.name} ${fullSelection(named, depth + 1)}` : field.name;
    });
  return `{ ${fields.join(' ')} }`;
}

function selectionFor(info: GraphQLResolveInfo): string {
  let selection = selections.get(info.schema);
  if (selection === undefined) {
    const payload = getNamedType(info.returnType);
    if (!isObjectType(payload)) throw new Error('statementDefinitions does not return an object type');
    selections.set(info.schema, (selection = fullSelection(payload)));
  }
  return selection;
}

export const definitionsResolvers = {
  Query: {
    statementDefinitions(root: unknown, _args: unknown, context: ResolverContext, info: GraphQLResolveInfo) {
      const { services, upstream } = context;
      const failure = () => services.outcomes.of(context.request).failure;
      const fetchFull = async () => {
        const answer = await context.StatementFilingService.Query.statementDefinitions({ root, args: {}, context, selectionSet: selectionFor(info) });
        if (answer instanceof Error) throw findGatewayError(answer) ?? failure() ?? gatewayError('UPSTREAM_ERROR');
        if (!answer) throw failure() ?? gatewayError('UPSTREAM_ERROR');
        return answer;
      };
      // A drop-in credential the upstream has not accepted yet must reach the upstream.
      return context.identity?.cacheTrusted ? services.definitions.get(upstream, fetchFull) : fetchFull();
    },
  },
};
