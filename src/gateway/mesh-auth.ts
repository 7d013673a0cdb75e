/**
 * The one way the gateway signs in and out upstream (for `login`, `logout` and the service
 * accounts): the hidden `signIn` and `signOut` of the Mesh REST source `SignIn` (.meshrc.ts,
 * sources/sign-in/), executed on that source's own schema, so the JSON schemas there describe the
 * calls that are made. Mesh builds each request (URL, headers, body) and reads the answer by its
 * status; the transport is the gateway's upstream client (timeouts, retries, the circuit, spans),
 * handed to the source as the call's `fetch`. The drop-in front's pass-through is not this: it
 * must return the upstream's own bytes.
 *
 * Each operation's document is parsed and validated against the source once, at start, and run
 * with graphql-js's `execute` (what the source's executor does), not through Mesh's in-context SDK:
 * the SDK delegates from the unified schema on every call, rebuilding and re-walking the document
 * each time (about a fifth of a login's CPU, issue 44). The source has no transforms
 * (.meshrc.ts), so there is nothing else the delegation did.
 */
import { execute, parse, validate, type GraphQLSchema } from 'graphql';
import type { MeshFetch } from '@graphql-mesh/types';
import type { MeshInstance } from '@graphql-mesh/runtime';
import { credentialFromHeaders } from '../upstream/credential';
import type { UpstreamAuth, UpstreamSignIn } from '../credentials/upstream-auth';
import { brokeredFetch } from '../identity/brokered-fetch';
import type { UpstreamCall, UpstreamFetch } from '../upstream/fetch';
import type { UpstreamOutcomes } from '../upstream/outcome';
import type { UpstreamTarget } from '../upstream/target';

type ResponseHeaders = Record<string, string | string[] | undefined>;

interface Answer {
  readonly __typename?: string;
  readonly _response?: { readonly headers?: ResponseHeaders };
}

/** The source's name and fields in .meshrc.ts. */
const SOURCE = 'SignIn';

const SIGN_IN_SELECTION = /* GraphQL */ `{
  __typename
  ... on SignInSuccess { _response { headers } }
  ... on SignInFailure { success }
}`;
const SIGN_IN_ARGUMENTS = ['input'] as const;

/** SignOutSuccess (200) or SignOutUnknown (404): either way the credential no longer works. */
const SIGN_OUT_SELECTION = '{ __typename }';
const SIGN_OUT_ARGUMENTS = ['accessToken', 'client', 'uid'] as const;
const SIGNED_OUT = new Set(['SignOutSuccess', 'SignOutUnknown']);

const UPSTREAM_ERROR: UpstreamSignIn = { ok: false, code: 'UPSTREAM_ERROR' };

function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

type MeshParts = Pick<MeshInstance, 'rawSources'>;

/** A mutation of the source, ready to run: its document, parsed and validated once. */
type SourceMutation<Args extends string> = (variables: Readonly<Record<Args, unknown>>, context: object) => Promise<unknown>;

/**
 * `mutation (<args>) { <field>(<args>) <selection> }` on the source's schema, its variables typed
 * as the field's arguments are. Throws at start when the build lacks the field or the document
 * does not fit it (run `npm run build:mesh`).
 */
function sourceMutation<Args extends string>(schema: GraphQLSchema, field: string, args: readonly Args[], selection: string): SourceMutation<Args> {
  const definition = schema.getMutationType()?.getFields()[field];
  if (!definition) throw new Error(`The Mesh build has no ${SOURCE}.${field} (run \`npm run build:mesh\`)`);
  const typeOf = (name: string) => {
    const argument = definition.args.find((candidate) => candidate.name === name);
    if (!argument) throw new Error(`The Mesh build's ${SOURCE}.${field} has no argument ${name} (run \`npm run build:mesh\`)`);
    return String(argument.type);
  };
  const document = parse(`mutation ${field}(${args.map((name) => `$${name}: ${typeOf(name)}`).join(', ')}) { ${field}(${args.map((name) => `${name}: $${name}`).join(', ')}) ${selection} }`);
  const problems = validate(schema, document);
  if (problems.length > 0) throw new Error(`The Mesh build's ${SOURCE}.${field} does not take the gateway's call: ${problems[0]?.message ?? ''} (run \`npm run build:mesh\`)`);
  return async (variables, context) => {
    const result = await execute({ schema, document, variableValues: variables, contextValue: context, rootValue: {} });
    const value = result.data?.[field];
    const [error] = result.errors ?? [];
    if (value == null && error) throw error;
    return value;
  };
}

/** The source's sign-in and sign-out, ready to run. */
function authOperations(mesh: MeshParts) {
  const schema = mesh.rawSources.find((source) => source.name === SOURCE)?.schema;
  if (!schema) throw new Error(`The Mesh build has no ${SOURCE} source (run \`npm run build:mesh\`)`);
  return {
    signIn: sourceMutation(schema, 'signIn', SIGN_IN_ARGUMENTS, SIGN_IN_SELECTION),
    signOut: sourceMutation(schema, 'signOut', SIGN_OUT_ARGUMENTS, SIGN_OUT_SELECTION),
  };
}

/** One call's context: where the source's endpoint points, and the fetch its call goes out with. */
function callContext(upstreamFetch: UpstreamFetch, outcomes: UpstreamOutcomes, target: UpstreamTarget, call: Omit<UpstreamCall, 'environment'>, request: Request | undefined) {
  const made: { failure?: Error } = {};
  const fetch: MeshFetch = async (url, init = {}) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(init.headers ?? {})) headers[name.toLowerCase()] = value;
    try {
      return request
        ? await brokeredFetch(upstreamFetch, url, { ...init, headers }, { request, identity: undefined, upstream: target, outcomes, ...call })
        : await upstreamFetch(url, { ...init, headers }, { environment: target.environment, ...call });
    } catch (error) {
      // Mesh turns it into an answer that says little; the caller gets the client's own error.
      made.failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    }
  };
  return { context: { upstream: target, fetch }, made };
}

export function meshUpstreamAuth(mesh: MeshParts, upstreamFetch: UpstreamFetch, outcomes: UpstreamOutcomes): UpstreamAuth {
  const operations = authOperations(mesh);
  return {
    async signIn(target, email, password, request) {
      // A sign-in only hands out a credential: safe to repeat.
      const { context, made } = callContext(upstreamFetch, outcomes, target, { operation: 'signIn', retry: 'safe' }, request);
      const answer = await operations.signIn({ input: { email, password } }, context).catch((error: unknown) => error);
      if (made.failure !== undefined) throw made.failure;
      if (answer instanceof Error || typeof answer !== 'object' || answer === null) return UPSTREAM_ERROR;
      const { __typename, _response } = answer as Answer;
      if (__typename === 'SignInFailure') return { ok: false, code: 'UNAUTHENTICATED' };
      if (__typename !== 'SignInSuccess') return UPSTREAM_ERROR;
      const headers = _response?.headers ?? {};
      const credential = credentialFromHeaders((name) => header(headers, name));
      return credential ? { ok: true, credential } : UPSTREAM_ERROR;
    },

    async signOut(target, credential) {
      // Made once: a sign-out is not a read.
      const { context } = callContext(upstreamFetch, outcomes, target, { operation: 'signOut' }, undefined);
      const args = { accessToken: credential.accessToken, client: credential.client, uid: credential.uid };
      const answer = await operations.signOut(args, context).catch((error: unknown) => error);
      const typename = typeof answer === 'object' && answer !== null && !(answer instanceof Error) ? (answer as Answer).__typename : undefined;
      return typename !== undefined && SIGNED_OUT.has(typename) ? 'ok' : 'failed';
    },
  };
}
