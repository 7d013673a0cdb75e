/**
 * Who a request acts as, found before execution (and before any response cache) by asking each
 * strategy in turn (the drop-in front's credential, the session cookie, an API key): the first that
 * recognises the request decides. Only `confirmRegistration`, `login`, `logout` (idempotent),
 * `session` and `__typename` run without an identity (and, outside production, introspection).
 */
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors';
import type { UpstreamTarget } from '../upstream/target';
import { countsAsActivity } from './activity';
import { identifyRequest, type DecidedIdentities } from './identify';
import type { IdentityStrategy, RequestIdentity } from './strategy';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';

/** Root fields an anonymous caller may use (the contract's list, `logout` which is idempotent, and `__typename`). */
const ANONYMOUS_FIELDS = ['confirmRegistration', 'login', 'logout', 'session', '__typename'];
/** Outside production, anonymous introspection too: GraphiQL needs the schema before login. */
const DEVELOPMENT_ANONYMOUS_FIELDS = ['__schema', '__type'];

/** What this plugin puts in the GraphQL context (Mesh's source endpoints interpolate it). */
export interface IdentityContext {
  readonly request: Request;
  upstream: UpstreamTarget;
  identity?: RequestIdentity;
  /** The identity's key, for the upstream executor's in-flight deduplication (see .meshrc.ts). */
  identityKey?: string;
}

/**
 * The context fields of a request acting as `identity`, always set together: who it is, its key
 * for the upstream executor's deduplication, and where its upstream calls go (the identity found
 * before execution, or the session a `login` just created for the rest of its document).
 */
export function actingAs(identity: RequestIdentity): Pick<IdentityContext, 'identity' | 'identityKey' | 'upstream'> {
  return { identity, identityKey: identity.key, upstream: identity.upstream };
}

export function isIdentityContext(value: unknown): value is IdentityContext {
  return typeof value === 'object' && value !== null && 'request' in value && 'upstream' in value;
}

export interface IdentityOptions {
  /** Asked in this order. */
  readonly strategies: readonly IdentityStrategy[];
  readonly production: boolean;
  /** Where an anonymous request's upstream calls go. */
  readonly defaultUpstream: (request: Request) => UpstreamTarget;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** The upstream user each request acted as, for its access log line. */
  readonly uid: RequestSlot<string>;
  /** The step the hot path already took for a request it handed over (identify.ts). */
  readonly decided?: DecidedIdentities;
}

export function useIdentity({ strategies, production, defaultUpstream, operations, uid, decided }: IdentityOptions): Plugin<IdentityContext> {
  const anonymousFields = new Set([...ANONYMOUS_FIELDS, ...(production ? [] : DEVELOPMENT_ANONYMOUS_FIELDS)]);
  return {
    onContextBuilding({ context, extendContext }) {
      extendContext({ upstream: defaultUpstream(context.request) });
    },

    async onExecute({ args, extendContext, setResultAndStopExecution }) {
      const request = args.contextValue.request;
      const executed = operations.get(request);
      if (!executed) return;
      const verdict = await (decided?.get(request) ?? identifyRequest(strategies, request, countsAsActivity(executed.fields, (args.variableValues ?? {}) as Record<string, unknown>)));
      if ('refusal' in verdict) return setResultAndStopExecution({ errors: [verdict.refusal] });
      if ('identity' in verdict) {
        const { identity } = verdict;
        uid.set(request, identity.uid);
        extendContext(actingAs(identity));
        return;
      }
      if (executed.fields.some((field) => !anonymousFields.has(field.name.value))) {
        setResultAndStopExecution({ errors: [gatewayError('UNAUTHENTICATED')] });
      }
    },
  };
}
