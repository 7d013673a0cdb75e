/**
 * The schema the drop-in front serves: the upstream's, without what the gateway adds (`login`,
 * `logout`, `session`, the list of sessions and their `Session`, `SessionInfo` and `Environment`
 * types, declared in .meshrc.ts).
 * Clients that build their schema from introspection (Python's gql, code generators) then see
 * the same schema through the front as from the upstream, and a document naming a gateway-only
 * field fails validation as it does upstream. Types, resolvers and directives are shared with the
 * gateway's schema; the test of the front's introspection compares it with the upstream's.
 *
 * Its directives are graphql-ruby's: `@deprecated` on FIELD_DEFINITION, ARGUMENT_DEFINITION,
 * INPUT_FIELD_DEFINITION and ENUM_VALUE only. graphql-js 16.15 adds DIRECTIVE_DEFINITION, which
 * the upstream does not serve and older clients (graphql-core 3.2.8, the Python tutorial's `gql`)
 * cannot read, so a client that builds its schema from the front's introspection would fail.
 */
import { DirectiveLocation, GraphQLDirective, GraphQLObjectType, GraphQLSchema, isSpecifiedScalarType, type GraphQLNamedType } from 'graphql';

/** Root fields the gateway adds to the upstream's (.meshrc.ts additionalTypeDefs). */
const GATEWAY_ROOT_FIELDS = new Set(['login', 'logout', 'session', 'sessions', 'endSession', 'logoutEverywhere']);
/** Where graphql-ruby lets `@deprecated` stand. */
export const UPSTREAM_DEPRECATED_LOCATIONS: readonly DirectiveLocation[] = [
  DirectiveLocation.FIELD_DEFINITION, DirectiveLocation.ARGUMENT_DEFINITION, DirectiveLocation.INPUT_FIELD_DEFINITION, DirectiveLocation.ENUM_VALUE,
];

/** Types only those fields use. */
const GATEWAY_TYPES = new Set(['Session', 'SessionInfo', 'Environment']);

function withoutGatewayFields(root: GraphQLObjectType): GraphQLObjectType {
  const config = root.toConfig();
  const fields = Object.fromEntries(Object.entries(config.fields).filter(([name]) => !GATEWAY_ROOT_FIELDS.has(name)));
  return new GraphQLObjectType({ ...config, fields });
}

export function frontSchemaOf(schema: GraphQLSchema): GraphQLSchema {
  const config = schema.toConfig();
  const roots = new Map<GraphQLNamedType, GraphQLObjectType>();
  if (config.query) roots.set(config.query, withoutGatewayFields(config.query));
  if (config.mutation) roots.set(config.mutation, withoutGatewayFields(config.mutation));
  // graphql-js lists the built-in scalars where they are first used, as in a schema built from the
  // upstream's SDL (Mesh's composition lists them later): introspection then keeps the upstream's order.
  const types = config.types
    .filter((type) => !GATEWAY_TYPES.has(type.name) && !isSpecifiedScalarType(type))
    .map((type) => roots.get(type) ?? type);
  return new GraphQLSchema({
    ...config,
    query: config.query ? roots.get(config.query) : undefined,
    mutation: config.mutation ? roots.get(config.mutation) : undefined,
    types,
    directives: config.directives.map((directive) =>
      directive.name === 'deprecated' ? new GraphQLDirective({ ...directive.toConfig(), locations: [...UPSTREAM_DEPRECATED_LOCATIONS] }) : directive),
  });
}
