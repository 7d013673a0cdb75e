
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
 * devise_token_auth 1.2 also sends the whole credential as `Authorization: Bearer <base64 JSON>`;
 * an upstream configured to send only that header is read from it.
 */
export function deviseAuthorization(value: string | null | undefined): boolean {
  return typeof fromAuthorization(value)?.['access-token'] === 'string';
}

function fromAuthorization(value: string | null | undefined): Record<string, string> | undefined {
  const match = /^Bearer\s+([A-Za-z0-9+/=_-]+)$/.exec(value?.trim() ?? '');
  if (!match?.[1]) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(match[1], 'base64').toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a credential from upstream response headers. devise_token_auth answers a request inside
 * its batch window with a blank `access-token` (" "): that means "keep the one you have", so a
 * blank or missing token gives undefined.
 */
export function credentialFromHeaders(get: (name: string) => string | null | undefined): UpstreamCredential | undefined {
  let accessToken = get('access-token')?.trim();
  let client = get('client')?.trim();
  let uid = get('uid')?.trim();
  let expiryText = get('expiry');
  if (!accessToken && get('access-token') === null) {
    const bearer = fromAuthorization(get('authorization'));
    accessToken = bearer?.['access-token']?.trim();
    client ||= bearer?.client?.trim();
    uid ||= bearer?.uid?.trim();
    expiryText ??= bearer?.expiry;
  }
  if (!accessToken || !client || !uid) return undefined;
  const expiry = Number(expiryText);
  return { accessToken, client, uid, ...(Number.isFinite(expiry) && expiry > 0 ? { expiry } : {}) };
}

