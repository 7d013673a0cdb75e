/** The upstream's committed GraphQL schema (sources/), built once for the specs that need it. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, type GraphQLSchema } from 'graphql';

export const UPSTREAM_SDL = readFileSync(path.resolve(__dirname, '../../sources/statement-filing-service/schema.graphql'), 'utf8');

let built: GraphQLSchema | undefined;

export function upstreamSchema(): GraphQLSchema {
  return (built ??= buildSchema(UPSTREAM_SDL));
}
