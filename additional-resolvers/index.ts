/** The resolvers `.meshrc.ts` adds to the upstream's schema: the gateway-only operations. */
import { sessionResolvers } from './session';

export const resolvers = sessionResolvers;
