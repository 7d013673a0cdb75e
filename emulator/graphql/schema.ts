/**
 * The emulator's executable schema: the committed upstream SDL (`sources/`), the one contract the
 * emulator implements and the gateway consumes, with the resolvers of this folder.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLError, GraphQLScalarType, Kind, type GraphQLSchema } from 'graphql';
import { lifecycleResolvers } from './lifecycle';
import { readResolvers } from './reads';
import { writeResolvers } from './writes';

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

export function buildEmulatorSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: readFileSync(SDL_PATH, 'utf8'),
    resolvers: {
      Date: DateScalar,
      Query: readResolvers(),
      Mutation: { ...writeResolvers(), ...lifecycleResolvers() },
    },
  });
}
