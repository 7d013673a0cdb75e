/**
 * The identity step, once per request, for both of the gateway's callers of it: useIdentity (the
 * Yoga pipeline) and the hot path (src/http/hot-path.ts). Each strategy is asked in turn (the
 * session cookie, an API key); the first that recognises the request decides.
 *
 * A request the hot path began and then handed to Yoga (anything but a clean answer) carries the
 * step it already took in `DecidedIdentities`: Yoga reads that verdict instead of asking again, so
 * a session is touched, and a service account's requests are counted, once per request.
 */
import { RequestSlot } from '../request/slot';
import { ANONYMOUS, type IdentityStrategy, type IdentityVerdict } from './strategy';

export async function identifyRequest(strategies: readonly IdentityStrategy[], request: Request, activity: boolean): Promise<IdentityVerdict> {
  for (const strategy of strategies) {
    const found = strategy.identify(request, { activity });
    if (found) return found;
  }
  return ANONYMOUS;
}

/** The identity step a request's hot path took before handing it to Yoga. */
export class DecidedIdentities extends RequestSlot<Promise<IdentityVerdict>> {}
