/**
 * What the drop-in front keeps per request, begun by useDropInFront for the front's GraphQL paths
 * and written by the drop-in identity: how to answer as the upstream would.
 */
import type { FieldNode } from 'graphql';
import type { UpstreamCredential } from '../upstream/credential';
import { RequestSlot } from '../request/slot';

export interface DropInState {
  /** The upstream refused the client's credential: its answer, passed on as it was. */
  refusal?: { readonly status: number; readonly headers: Record<string, string>; readonly body: string };
  /** The client's credential, which the upstream accepted recently (with the `expiry` remembered for it). */
  verified?: UpstreamCredential;
  /** The verified credential, once the request executes as it: echoed when no upstream call answered. */
  presented?: UpstreamCredential;
  /** Credential headers of the upstream's last answer (blank batch-window values included). */
  credentialHeaders?: Record<string, string>;
  /** The e-mail a sign-in through the front tried (for the audit line of a refused one). */
  signInEmail?: string;
  /** A mutation the front passed through (or refused) without running it: what its audit line names. */
  passedMutation?: { readonly fields: readonly FieldNode[]; readonly variables: Record<string, unknown> };
  /** The code of the front's own refusal of the request (a limit, a body too large), for the audit line. */
  refusedWith?: string;
}

/** The front's state of each request on one of its paths. */
export class DropInStates extends RequestSlot<DropInState> {
  begin(request: Request): DropInState {
    return this.ensure(request, () => ({}));
  }

  /** The front's state of a request on one of its paths; undefined for every other request. */
  of(request: Request): DropInState | undefined {
    return this.get(request);
  }
}
