/**
 * The one way the gateway signs in and out upstream (for `login`, `logout` and the service
 * accounts): the hidden `signIn` and `signOut` of the Mesh REST source `SignIn` (.meshrc.ts,
 * sources/sign-in/), called through Mesh's in-context SDK, so the JSON schemas there describe the
 * calls that are made. Mesh builds each request (URL, headers, body) and reads the answer by its
 * status; the transport is the gateway's upstream client (timeouts, retries, the circuit, spans),
 * handed to the source as the call's `fetch`. The drop-in front's pass-through is not this: it
 * must return the upstream's own bytes.
 */
import type { MeshFetch, MeshPlugin } from '@graphql-mesh/types';
import { getInContextSDK } from '@graphql-mesh/utils';
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

type SdkField<Args> = (options: { root: unknown; args: Args; context: unknown; selectionSet: string }) => Promise<unknown>;

/** The hidden operations, as the in-context SDK exposes them. */
interface AuthSdk {
  readonly SignIn: {
    readonly Mutation: {
      readonly signIn: SdkField<{ input: { email: string; password: string } }>;
      readonly signOut: SdkField<{ accessToken: string; client: string; uid: string }>;
    };
  };
}

/** The source's name and fields in .meshrc.ts. */
const SOURCE = 'SignIn';

const SIGN_IN_SELECTION = /* GraphQL */ `{
  __typename
  ... on SignInSuccess { _response { headers } }
  ... on SignInFailure { success }
}`;

/** SignOutSuccess (200) or SignOutUnknown (404): either way the credential no longer works. */
const SIGN_OUT_SELECTION = '{ __typename }';
const SIGNED_OUT = new Set(['SignOutSuccess', 'SignOutUnknown']);

const UPSTREAM_ERROR: UpstreamSignIn = { ok: false, code: 'UPSTREAM_ERROR' };

function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function isAuthSdk(sdk: Record<string, unknown>): boolean {
  const mutation = (sdk[SOURCE] as { Mutation?: Record<string, unknown> } | undefined)?.Mutation;
  return typeof mutation?.signIn === 'function' && typeof mutation.signOut === 'function';
}

type MeshParts = Pick<MeshInstance, 'schema' | 'rawSources' | 'logger' | 'plugins'>;

/** Mesh's own in-context SDK, as its resolvers get it, built from the mesh with the same hooks. */
function authSdkOf(mesh: MeshParts): AuthSdk {
  const onDelegate = mesh.plugins.flatMap((plugin) => {
    const hook = (plugin as MeshPlugin<unknown>).onDelegate;
    return hook ? [hook] : [];
  });
  const sdk = getInContextSDK(mesh.schema, mesh.rawSources, mesh.logger, onDelegate);
  if (!isAuthSdk(sdk)) throw new Error(`The Mesh build has no ${SOURCE}.signIn and signOut (run \`npm run build:mesh\`)`);
  return sdk as unknown as AuthSdk;
}

/** One SDK call's context: where the source's endpoint points, and the fetch its call goes out with. */
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
  const sdk = authSdkOf(mesh).SignIn.Mutation;
  return {
    async signIn(target, email, password, request) {
      // A sign-in only hands out a credential: safe to repeat.
      const { context, made } = callContext(upstreamFetch, outcomes, target, { operation: 'signIn', retry: 'safe' }, request);
      const answer = await sdk.signIn({ root: {}, args: { input: { email, password } }, context, selectionSet: SIGN_IN_SELECTION }).catch((error: unknown) => error);
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
      const answer = await sdk.signOut({ root: {}, args, context, selectionSet: SIGN_OUT_SELECTION }).catch((error: unknown) => error);
      const typename = typeof answer === 'object' && answer !== null && !(answer instanceof Error) ? (answer as Answer).__typename : undefined;
      return typename !== undefined && SIGNED_OUT.has(typename) ? 'ok' : 'failed';
    },
  };
}
