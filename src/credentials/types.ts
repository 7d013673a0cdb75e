import type { Environment } from '../config';

/** The devise_token_auth credential: the three headers every authenticated upstream call carries. */
export interface UpstreamCredential {
  readonly accessToken: string;
  readonly client: string;
  readonly uid: string;
  /** Epoch seconds from the `expiry` header, when the upstream sent one. */
  readonly expiry?: number;
}

export const CREDENTIAL_HEADERS = ['access-token', 'client', 'uid', 'token-type', 'expiry', 'authorization'] as const;

/**
 * Reads a credential from upstream response headers. devise_token_auth answers a request inside
 * its batch window with a blank `access-token` (" "): that means "keep the one you have", so a
 * blank or missing token gives undefined.
 */
export function credentialFromHeaders(get: (name: string) => string | null | undefined): UpstreamCredential | undefined {
  const accessToken = get('access-token')?.trim();
  const client = get('client')?.trim();
  const uid = get('uid')?.trim();
  if (!accessToken || !client || !uid) return undefined;
  const expiry = Number(get('expiry'));
  return { accessToken, client, uid, ...(Number.isFinite(expiry) && expiry > 0 ? { expiry } : {}) };
}

export interface UpstreamTarget {
  readonly environment: Environment;
  readonly baseUrl: string;
  readonly graphqlUrl: string;
}
