/**
 * The resolvers `.meshrc.ts` adds to the upstream's schema: the gateway-only operations, and
 * `statementDefinitions` answered from the definitions cache.
 */
import { definitionsResolvers } from './definitions';
import { sessionResolvers } from './session';

export const resolvers = {
  Query: { ...sessionResolvers.Query, ...definitionsResolvers.Query },
  Mutation: sessionResolvers.Mutation,
};
