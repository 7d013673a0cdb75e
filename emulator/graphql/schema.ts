/**
 * The emulator's executable schema: the committed upstream SDL (`sources/`), the one contract the
 * emulator implements and the gateway consumes, with the resolvers of this folder; or that SDL
 * with the control API's `schemaChanges` made (schema-changes.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { assertValidSchema, DirectiveLocation, GraphQLDirective, GraphQLError, GraphQLScalarType, GraphQLSchema, Kind, parse } from 'graphql';
import { DocumentCache } from './documents';
import { lifecycleResolvers } from './lifecycle';
import { readResolvers } from './reads';
import { writeResolvers } from './writes';
import { applySchemaChanges, changesKey, SchemaChangeError, type SchemaChanges } from './schema-changes';

export const SDL_PATH = join(__dirname, '..', '..', 'sources', 'statement-filing-service', 'schema.graphql');

function parseDate(value: unknown): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const d = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(d.getTime()) && d.toISOString().startsWith(value)) return value;
  }
  throw new GraphQLError(`${JSON.stringify(value)} is not a valid ISO-8601 date (YYYY-MM-DD)`);
}

/**
 * graphql-tools copies every property of a scalar given as a resolver onto the SDL's scalar, the
 * description too: without one here, introspection would lose the SDL's description.
 */
const DateScalar = new GraphQLScalarType({
  name: 'Date',
  description: 'An ISO-8601 calendar date: YYYY-MM-DD.',
  serialize: (value) => value,
  parseValue: parseDate,
  parseLiteral: (ast) => parseDate(ast.kind === Kind.STRING ? ast.value : undefined),
});

/**
 * graphql-ruby's `@deprecated` locations. graphql-js 16.15 adds DIRECTIVE_DEFINITION, which
 * graphql-ruby does not serve and which older introspection clients (graphql-core 3.2.8, the Python
 * tutorial's `gql`) cannot read: their DirectiveLocation enum has no such member.
 */
export const DEPRECATED_LOCATIONS: readonly DirectiveLocation[] = [
  DirectiveLocation.FIELD_DEFINITION, DirectiveLocation.ARGUMENT_DEFINITION, DirectiveLocation.INPUT_FIELD_DEFINITION, DirectiveLocation.ENUM_VALUE,
];

/** The schema with graphql-ruby's directive locations in place of graphql-js's. */
function withRubyDirectives(schema: GraphQLSchema): GraphQLSchema {
  const directives = schema.getDirectives().map((directive) =>
    directive.name === 'deprecated' ? new GraphQLDirective({ ...directive.toConfig(), locations: [...DEPRECATED_LOCATIONS] }) : directive);
  return new GraphQLSchema({ ...schema.toConfig(), directives });
}

/** The schema, as committed or with `changes` made; throws a SchemaChangeError for changes that cannot be made. */
export function buildEmulatorSchema(changes: SchemaChanges | null = null): GraphQLSchema {
  const sdl = parse(readFileSync(SDL_PATH, 'utf8'));
  const { document, added } = changes ? applySchemaChanges(sdl, changes) : { document: sdl, added: new Map<string, readonly string[]>() };
  // An added field answers null whatever its parent object holds.
  const nulls = Object.fromEntries([...added].map(([type, fields]) => [type, Object.fromEntries(fields.map((field) => [field, () => null]))]));
  const reads = readResolvers();
  const mutations = { ...writeResolvers(), ...lifecycleResolvers() };
  try {
    const schema = withRubyDirectives(makeExecutableSchema({
      typeDefs: document,
      resolvers: { ...nulls, Date: DateScalar, Query: { ...reads, ...nulls.Query }, Mutation: { ...mutations, ...nulls.Mutation } },
      // A removed root field keeps its resolver here, unused.
      resolverValidationOptions: { requireResolversToMatchSchema: changes ? 'ignore' : 'error' },
    }));
    assertValidSchema(schema);
    return schema;
  } catch (error) {
    if (!changes || error instanceof SchemaChangeError) throw error;
    // Say, a field an interface requires removed from a type that implements it.
    throw new SchemaChangeError(`the changed schema would not be valid: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export interface ServedSchema {
  readonly schema: GraphQLSchema;
  readonly documents: DocumentCache;
}

/**
 * The schema the emulator serves under the current `schemaChanges`: the committed one, built once,
 * and the last changed one, built when the changes are set (a build takes tens of milliseconds,
 * never on each request).
 */
export class EmulatorSchemas {
  private readonly original: ServedSchema;
  private changed: { readonly key: string; readonly served: ServedSchema } | undefined;

  constructor() {
    const schema = buildEmulatorSchema();
    this.original = { schema, documents: new DocumentCache(schema) };
  }

  /** The schema for these changes, built now if it is not the last one built; throws a SchemaChangeError. */
  servedFor(changes: SchemaChanges | null): ServedSchema {
    if (!changes) return this.original;
    const key = changesKey(changes);
    if (this.changed?.key !== key) {
      const schema = buildEmulatorSchema(changes);
      this.changed = { key, served: { schema, documents: new DocumentCache(schema) } };
    }
    return this.changed.served;
  }
}
