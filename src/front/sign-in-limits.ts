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
import { jsonResponse } from '../http/json-response';
import type { LoginAttempt } from '../protection/login-limits';
import type { GatewayRuntime } from '../runtime';

const MESSAGES: Partial<Record<GatewayError['code'], string>> = {
  RATE_LIMITED: 'Too many sign-in attempts. Try again later.',
  SESSION_STORE_UNAVAILABLE: 'Sign-in is unavailable. Try again later.',
};

/** The e-mail of a sign-in body (read whole by the front, within its limit), '' when none is found. */
export function emailOf(body: ArrayBuffer | undefined, contentType: string | null): string {
  if (!body) return '';
  const text = Buffer.from(body).toString('utf8');
  let email: unknown;
  if ((contentType ?? '').includes('application/x-www-form-urlencoded')) {
    email = new URLSearchParams(text).get('email');
  } else {
    try {
      const parsed = JSON.parse(text) as unknown;
      email = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).email : undefined;
    } catch {
      email = undefined;
    }
  }
  return typeof email === 'string' ? email : '';
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
export async function signInWithinLimits(runtime: Pick<GatewayRuntime, 'loginLimits'>, attempt: LoginAttempt, signIn: () => Promise<Response>): Promise<Response> {
  const refused = await runtime.loginLimits.admit(attempt);
  if (refused) return refusal(refused);
  const response = await signIn();
  if (response.status === 200) await runtime.loginLimits.succeeded(attempt);
  return response;
}
