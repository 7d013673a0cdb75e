/**
 * The identity step: each strategy is asked in turn (the session cookie, an API key; on the drop-in
 * front, its credential); the first that recognises the request decides. useIdentity asks it once
 * per request, for both of the gateway's callers (its own onExecute and the hot path).
 */
import { ANONYMOUS, type IdentityStrategy, type IdentityVerdict } from './strategy';

export async function identifyRequest(strategies: readonly IdentityStrategy[], request: Request, activity: boolean): Promise<IdentityVerdict> {
  for (const strategy of strategies) {
    const found = strategy.identify(request, { activity });
    if (found) return found;
  }
  return ANONYMOUS;
}
