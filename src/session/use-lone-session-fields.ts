/**
 * `login`, `logout`, `endSession` and `logoutEverywhere` must each be the only root field of their
 * operation (the contract's GraphQL schema): each changes which session, and so which upstream
 * credential, acts for the request, while its siblings were authorised against the session as it
 * was. `mutation { logout deleteStatements(...) }` signed the session out and then sent the delete
 * upstream with the signed-out credential; `login` beside another field would run that field as
 * someone the check before it never saw. Such a document is BAD_REQUEST before any of it runs: no
 * field, no identity lookup or session touch, no limit counted. Any second root field counts, an
 * aliased repeat included, but `__typename`: it acts on nothing, and typed clients (Apollo,
 * urql's graphcache, GraphQL Code Generator's documents) add it to every selection, the root
 * mutation's included, so refusing it would refuse their every login.
 *
 * One step, in the Yoga pipeline's execute phase, first after the executed operation is known.
 * The hot path (src/hot-path/hot-path.ts) never carries such an operation: it answers only queries of
 * upstream fields (fast-path/hot-documents.ts), and these fields are the gateway's own mutations.
 */
import type { Plugin } from 'graphql-yoga';
import { gatewayError, type GatewayError } from '../errors';
import type { ExecutedOperation } from '../request/executed';
import { SESSION_FIELDS } from '../request/root-fields';
import type { RequestSlot } from '../request/slot';


/** The refusal of an operation that puts a session field beside another root field, else undefined. */
export function loneSessionFieldRefusal(executed: ExecutedOperation): GatewayError | undefined {
  const acting = executed.fields.filter((candidate) => candidate.name.value !== '__typename');
  if (acting.length < 2) return undefined;
  const field = acting.find((candidate) => SESSION_FIELDS.has(candidate.name.value));
  if (!field) return undefined;
  return gatewayError('BAD_REQUEST', `\`${field.name.value}\` must be the only root field of its operation: send it in an operation of its own.`);
}

export interface LoneSessionFieldsOptions {
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
}

export function useLoneSessionFields({ operations }: LoneSessionFieldsOptions): Plugin<{ readonly request: Request }> {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const executed = operations.get(args.contextValue.request);
      const refusal = executed && loneSessionFieldRefusal(executed);
      if (refusal) setResultAndStopExecution({ errors: [refusal] });
    },
  };
}
