/**
 * The resolvers `.meshrc.ts` adds to the upstream's schema: the gateway-only operations, and
 * `statementDefinitions` answered from the definitions cache.
 */
import { definitionsResolvers } from './definitions';
import { sessionResolvers } from './session';
import { userSessionResolvers } from './user-sessions';

export const resolvers = {
  Query: { ...sessionResolvers.Query, ...userSessionResolvers.Query, ...definitionsResolvers.Query },
  Mutation: { ...sessionResolvers.Mutation, ...userSessionResolvers.Mutation },
};
