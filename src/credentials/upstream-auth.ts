/**
 * Signing in and out upstream, as the credentials need it: the service accounts sign in through
 * it, `login` and `logout` too. Declared here, where it is used, and implemented once over Mesh's
 * REST source (gateway/mesh-auth.ts); the runtime holds a handle that the server connects once
 * Mesh is built, since the service accounts exist before it.
 */
import type { SignInFailureCode } from './account-store';
import type { UpstreamCredential } from '../upstream/credential';
import type { UpstreamTarget } from '../upstream/target';

export type UpstreamSignIn = { readonly ok: true; readonly credential: UpstreamCredential } | { readonly ok: false; readonly code: SignInFailureCode };

export interface UpstreamAuth {
  /**
   * A refused password is `UNAUTHENTICATED`, an answer that is neither a credential nor a refusal
   * `UPSTREAM_ERROR`, both as values; no answer (refused, timed out, 5xx, open circuit) throws
   * the upstream client's GatewayError (UPSTREAM_UNAVAILABLE). With `request`, the call counts as
   * that client request's upstream call (upstream/outcome.ts), as a `login`'s does.
   */
  signIn(target: UpstreamTarget, email: string, password: string, request?: Request): Promise<UpstreamSignIn>;
  /** Best effort, never throws: `ok` when the credential no longer works (ended, or already unknown). */
  signOut(target: UpstreamTarget, credential: UpstreamCredential): Promise<'ok' | 'failed'>;
}

export interface ConnectableUpstreamAuth extends UpstreamAuth {
  /** Called once by the server, when Mesh is built. */
  connect(auth: UpstreamAuth): void;
}

export function connectableUpstreamAuth(): ConnectableUpstreamAuth {
  let connected: UpstreamAuth | undefined;
  const auth = (): UpstreamAuth => {
    if (!connected) throw new Error('upstream sign-in is not connected to Mesh');
    return connected;
  };
  return {
    connect(next) {
      connected = next;
    },
    signIn: async (target, email, password, request) => auth().signIn(target, email, password, request),
    signOut: async (target, credential) => auth().signOut(target, credential),
  };
}
