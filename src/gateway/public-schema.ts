/**
 * The schema clients see. Mesh's composed schema still declares the handlers' internal
 * directives (`@httpOperation`, `@transport`, ...): clutter that also describes the upstream's
 * plumbing. The public copy keeps only the specified directives; types and resolvers are shared.
 */
import { GraphQLSchema, isSpecifiedDirective } from 'graphql';

export function publicSchema(schema: GraphQLSchema): GraphQLSchema {
  const directives = schema.getDirectives();
  if (directives.every(isSpecifiedDirective)) return schema;
  return new GraphQLSchema({ ...schema.toConfig(), directives: directives.filter(isSpecifiedDirective) });
}
