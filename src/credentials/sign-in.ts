/**
 * The upstream's REST sign-in, for callers the gateway signs in itself (service accounts). Browser
 * logins go through the Mesh source instead (`login`); both end in the same credential headers.
 */
import type { UpstreamCredential } from './types';
import type { UpstreamTarget } from '../upstream/target';
import { credentialFromHeaders } from './types';
import type { SignInFailureCode } from './account-store';
import type { UpstreamFetch } from '../upstream/fetch';

export type UpstreamSignIn = { readonly ok: true; readonly credential: UpstreamCredential } | { readonly ok: false; readonly code: SignInFailureCode };

/** Throws UPSTREAM_UNAVAILABLE (refused, timed out, 5xx); a refusal of the password is a value. */
export async function signInUpstream(upstreamFetch: UpstreamFetch, target: UpstreamTarget, email: string, password: string): Promise<UpstreamSignIn> {
  const response = await upstreamFetch(
    `${target.baseUrl}/v2/auth/sign_in`,
    { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ email, password }) },
    // A sign-in only hands out a credential: safe to repeat.
    { environment: target.environment, operation: 'signIn', retry: 'safe' },
  );
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 401) return { ok: false, code: 'UNAUTHENTICATED' };
  const credential = response.ok ? credentialFromHeaders((name) => response.headers.get(name)) : undefined;
  return credential ? { ok: true, credential } : { ok: false, code: 'UPSTREAM_ERROR' };
}
