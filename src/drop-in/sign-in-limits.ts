/**
 * The login limits (protection/login-limits.ts) on the drop-in front's `POST /v2/auth/sign_in`,
 * so that the REST sign-in is not an unlimited password oracle beside `login`: both count against
 * the same counters. Refusals look like devise's own (`{"success": false, "errors": [...]}`) since
 * the clients here were written for it: 429 with Retry-After while limited (the right password
 * too: the upstream is not asked), 503 while the limits' store cannot be reached (fail closed).
 *
 * The e-mail is read as devise reads it: a JSON body's `email`, or a form's. A body where none can
 * be found still counts, under the empty e-mail, so another encoding cannot step around the limits.
 */
import type { GatewayError } from '../errors';
import { jsonResponse } from '../errors/json-response';
import { bodyParams } from './body-params';
import type { LoginAttempt, LoginLimits } from '../protection/login-limits';

const MESSAGES: Partial<Record<GatewayError['code'], string>> = {
  RATE_LIMITED: 'Too many sign-in attempts. Try again later.',
  SESSION_STORE_UNAVAILABLE: 'Sign-in is unavailable. Try again later.',
};

export interface SignInParams {
  readonly email: string;
  readonly password: string;
}

/** devise's answer to a sign-in without usable credentials (the emulator's INVALID_LOGIN). */
const INVALID_LOGIN = 'Invalid login credentials. Please try again.';

/**
 * The e-mail and password of a sign-in body (body-params.ts reads it as the upstream does);
 * undefined when either is missing or not a string, `malformed` for JSON that does not parse (the
 * upstream answers that with its 400 before looking for a password: no attempt to count).
 *
 * The front then sends the upstream a body it rebuilt from these two values, never the client's
 * own: the e-mail the limits count is the one the upstream checks (a form with a decoy `email`
 * first and the target's last was counted under the decoy while the upstream checked the target).
 */
export function signInParams(body: ArrayBuffer | undefined, contentType: string | null): SignInParams | 'malformed' | undefined {
  const params = bodyParams(body, contentType);
  if (params === 'malformed') return params;
  if (params === undefined || params === 'unsupported') return undefined;
  const { email, password } = params;
  return typeof email === 'string' && typeof password === 'string' ? { email, password } : undefined;
}

/** What devise answers a sign-in without an e-mail and password it can read; the upstream is not asked. */
export function unreadableSignIn(): Response {
  return jsonResponse(401, { success: false, errors: [INVALID_LOGIN] });
}

/** A devise-shaped refusal of the gateway's own. */
function refusal(error: GatewayError): Response {
  const http = error.extensions.http as { status: number; headers?: Record<string, string> };
  return jsonResponse(http.status, { success: false, errors: [MESSAGES[error.code] ?? error.message] }, http.headers ?? {});
}

/**
 * Runs `signIn` (the pass-through to the upstream) within the login limits. 200 is a successful
 * sign-in (clears the e-mail's failures); any other answer leaves the attempt counted.
 */
export async function signInWithinLimits(loginLimits: LoginLimits, attempt: LoginAttempt, signIn: () => Promise<Response>): Promise<Response> {
  const refused = await loginLimits.admit(attempt);
  if (refused) return refusal(refused);
  const response = await signIn();
  if (response.status === 200) await loginLimits.succeeded(attempt);
  return response;
}
