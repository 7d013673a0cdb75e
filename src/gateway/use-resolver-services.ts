/**
 * What the gateway's own resolvers use (login, logout, session, statementDefinitions), put in the
 * context by both products' pipelines (the front serves statementDefinitions too).
 */
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext, ResolverServices } from './context';

export function useResolverServices(services: ResolverServices): Plugin<GatewayContext> {
  return {
    onContextBuilding({ extendContext }) {
      extendContext({ services });
    },
  };
}
