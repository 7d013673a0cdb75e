/**
 * The REST sign-in and sign-out of devise_token_auth, and the credential headers it sends:
 * `access-token`, `token-type`, `client`, `expiry`, `uid`, and `authorization` (Bearer, the same
 * values base-64 encoded as JSON), which devise_token_auth 1.2 adds.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accountResource, type Credential } from '../accounts';
import type { EmulatorState } from '../state';
import { sendJson, str, type Params } from './io';

export const INVALID_LOGIN = 'Invalid login credentials. Please try again.';
export const SIGN_IN_REQUIRED = 'You need to sign in or sign up before continuing.';

export function credentialHeaders(c: Credential): Record<string, string> {
  const values = { 'access-token': c.accessToken, 'token-type': 'Bearer', client: c.client, expiry: String(c.expiry), uid: c.uid };
  return { ...values, authorization: `Bearer ${Buffer.from(JSON.stringify(values)).toString('base64')}` };
}

/** Inside the batch window devise answers blank token headers, so racing responses hand out no stale token. */
export function batchHeaders(client: string, uid: string): Record<string, string> {
  return { 'access-token': ' ', 'token-type': 'Bearer', client, expiry: ' ', uid };
}

export function signIn(state: EmulatorState, params: Params, res: ServerResponse): string | null {
  const email = str(params.email) ?? '';
  const password = str(params.password) ?? '';
  const account = email ? state.accounts.find(email) : undefined;
  if (account && account.confirmationToken !== null) {
    sendJson(res, 401, {
      success: false,
      errors: [`A confirmation email was sent to your account at '${account.email}'. You must follow the instructions in the email before your account can be activated`],
    });
    return null;
  }
  if (!account || !state.accounts.checkPassword(account, password)) {
    sendJson(res, 401, { success: false, errors: [INVALID_LOGIN] });
    return null;
  }
  const credential = state.accounts.issue(account, state.settings.tokenTtlSeconds);
  sendJson(res, 200, { data: accountResource(account) }, credentialHeaders(credential));
  return account.email;
}

function bearerValues(req: IncomingMessage): Params {
  const match = /^Bearer\s+(\S+)$/i.exec(str(req.headers.authorization) ?? '');
  if (!match?.[1]) return {};
  try {
    const value: unknown = JSON.parse(Buffer.from(match[1], 'base64').toString('utf8'));
    return value !== null && typeof value === 'object' ? (value as Params) : {};
  } catch {
    return {};
  }
}

/**
 * The credential as devise_token_auth reads it: request headers, else request params (the JSON body,
 * as the upstream's JavaScript tutorial signs out), else `Authorization: Bearer <base-64 JSON>`.
 */
export function credentialOf(req: IncomingMessage, params: Params): { uid?: string; client?: string; token?: string } {
  const bearer = bearerValues(req);
  const value = (name: string): string | undefined => str(req.headers[name]) ?? str(params[name]) ?? str(bearer[name]);
  return { uid: value('uid'), client: value('client'), token: value('access-token') };
}

export function signOut(state: EmulatorState, req: IncomingMessage, params: Params, res: ServerResponse): string | null {
  const { uid, client, token } = credentialOf(req, params);
  if (!state.accounts.signOut(uid, client, token)) {
    sendJson(res, 404, { success: false, errors: ['User was not found or was not logged in.'] });
    return null;
  }
  sendJson(res, 200, { success: true });
  return uid ?? null;
}
