/**
 * One upstream call on behalf of a request's identity: the three devise headers of its credential
 * in (and nothing of the client's request), a rotated token kept, and an upstream 401 handled as
 * the identity says (a session ends, a service account signs in again once, the drop-in front
 * passes the upstream's answer on). Both ways of calling the upstream use it: Mesh's delegation
 * (use-credential-broker.ts) and the fast path's forwarding (src/fast-path/); so does a `login`'s
 * sign-in (mesh-auth.ts), with no identity yet, for the request's upstream outcome.
 */
import { GatewayError } from '../errors';
import type { RequestIdentity } from './strategy';
import type { UpstreamFetch } from '../upstream/fetch';
import type { UpstreamOutcomes } from '../upstream/outcome';
import { isCircuitRefusal } from '../upstream/resilience';
import type { UpstreamTarget } from '../upstream/target';

export interface BrokeredCall {
  readonly request: Request;
  readonly identity: RequestIdentity | undefined;
  readonly upstream: UpstreamTarget;
  /** A bounded label (the upstream operation), for logs and metrics. */
  readonly operation: string;
  /** `safe` when the caller knows the operation is a query or a sign-in: see UpstreamCall. */
  readonly retry?: 'safe';
  /** Where the request's upstream outcome is recorded. */
  readonly outcomes: UpstreamOutcomes;
}

/**
 * `headers` are the call's own (lower-case names); the credential's are added to a copy. The
 * request's upstream outcome (`call.outcomes`) records an answer or the failure raised.
 */
export async function brokeredFetch(upstreamFetch: UpstreamFetch, url: string, init: RequestInit & { readonly headers: Readonly<Record<string, string>> }, call: BrokeredCall): Promise<Response> {
  const { request, identity, outcomes } = call;
  const once = async (): Promise<Response> => {
    const headers: Record<string, string> = { ...init.headers };
    if (identity) {
      const credential = identity.credential();
      headers['access-token'] = credential.accessToken;
      headers.client = credential.client;
      headers.uid = credential.uid;
      headers['token-type'] = 'Bearer';
    }
    const answer = await upstreamFetch(url, { ...init, headers }, { environment: call.upstream.environment, operation: call.operation, ...(call.retry ? { retry: call.retry } : {}) });
    outcomes.noteAnswered(request);
    return answer;
  };
  try {
    let response = await once();
    if (!identity) return response;
    // The identity renews its credential and lets the call be made again, or throws.
    while (response.status === 401) {
      await identity.refused(response);
      response = await once();
    }
    await identity.answered(response);
    return response;
  } catch (error) {
    if (error instanceof GatewayError) outcomes.noteFailure(request, error);
    if (!isCircuitRefusal(error)) outcomes.noteSent(request);
    throw error;
  }
}
