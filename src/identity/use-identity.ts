/**
 * Who a request acts as, found before execution (and before any response cache) by asking each
 * strategy in turn (the drop-in front's credential, the session cookie, an API key): the first that
 * recognises the request decides. Only `confirmRegistration`, `login`, `logout` (idempotent),
 * `session` and `__typename` run without an identity (and, outside production, introspection).
 *
 * One of the gateway's execute steps (src/gateway/execute-steps.ts): the hot path asks the same
 * plugin's `verdictOf`, which asks the strategies once per request, so a request the hot path hands
 * to the pipeline touches its session, and counts a service account's request, once.
 */
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors';
import type { UpstreamTarget } from '../upstream/target';
import { countsAsActivity } from './activity';
import { identifyRequest } from './identify';
import type { IdentityStrategy, IdentityVerdict, RequestIdentity } from './strategy';
import type { ExecutedOperation } from '../request/executed';
import { RequestSlot } from '../request/slot';

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
}

export interface IdentityPlugin extends Plugin<IdentityContext> {
  /**
   * Who the request acts as, asked of the strategies the first time it is asked for the request
   * (by whichever caller asks first); the uid of an identity is noted for the access log.
   */
  verdictOf(request: Request, executed: ExecutedOperation, variables: Readonly<Record<string, unknown>>): Promise<IdentityVerdict>;
}

export function useIdentity({ strategies, production, defaultUpstream, operations, uid }: IdentityOptions): IdentityPlugin {
  const anonymousFields = new Set([...ANONYMOUS_FIELDS, ...(production ? [] : DEVELOPMENT_ANONYMOUS_FIELDS)]);
  const verdicts = new RequestSlot<Promise<IdentityVerdict>>();
  const verdictOf = (request: Request, executed: ExecutedOperation, variables: Readonly<Record<string, unknown>>) =>
    verdicts.ensure(request, async () => {
      const verdict = await identifyRequest(strategies, request, countsAsActivity(executed.fields, variables));
      if ('identity' in verdict) uid.set(request, verdict.identity.uid);
      return verdict;
    });
  return {
    verdictOf,
    onContextBuilding({ context, extendContext }) {
      extendContext({ upstream: defaultUpstream(context.request) });
    },

    async onExecute({ args, extendContext, setResultAndStopExecution }) {
      const request = args.contextValue.request;
      const executed = operations.get(request);
      if (!executed) return;
      const verdict = await verdictOf(request, executed, (args.variableValues ?? {}) as Record<string, unknown>);
      if ('refusal' in verdict) return setResultAndStopExecution({ errors: [verdict.refusal] });
      if ('identity' in verdict) {
        extendContext(actingAs(verdict.identity));
        return;
      }
      if (executed.fields.some((field) => !anonymousFields.has(field.name.value))) {
        setResultAndStopExecution({ errors: [gatewayError('UNAUTHENTICATED')] });
      }
    },
  };
}
