/**
 * The audit trail: one `audit` log line for every mutation (login and logout included), every
 * refused request (UNAUTHENTICATED, INVALID_CREDENTIALS, CSRF_CHECK_FAILED, RATE_LIMITED, and any
 * 401/403/429 answer elsewhere, such as /metrics without its token) and every sign-in or sign-out
 * through the drop-in front. It says who (the identity's kind, uid or account, environment, a
 * short hash of the session), from where (client address; the request id comes with every line),
 * what (root fields, how many statements the arguments name) and how it ended (`ok` or the error
 * code, and the status). A mutation answered again from its Idempotency-Key's record ends
 * `idempotent.replayed`, and the key's hash is on its line and on the run's: a replay never reads
 * as a second filing. Answers a pipeline gives without a GraphQL result (the drop-in front's
 * sign-in, sign-out and passed-through mutations) are described by that pipeline (`answered`). It
 * never holds an argument's value but the login's e-mail: no password, credential, cookie, TIN or PDF.
 *
 * Placed after the error mapping, so it reads the codes the client gets; the line is written when
 * the answer leaves (onResponse), with its status.
 */
import { OperationTypeNode, valueFromASTUntyped, type FieldNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { environmentFromEnum } from '../environment';
import type { IdempotencyMarks } from '../idempotency/audit-mark';
import type { RequestIdentity } from '../identity/strategy';
import type { IdentityContext } from '../identity/use-identity';
import { sessionAuditId, sessionKey } from '../session/sessions';
import type { AuditFields, LogEvents } from '../observability/log-events';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';
import type { ClientAddresses } from '../protection/client-address';
import type { SessionCookies } from '../session/cookie';

/** An audit line before its status, path and client address, which the answer gives. */
export type AuditEntry = Omit<AuditFields, 'status' | 'path' | 'clientAddress'>;

export interface AuditLogOptions {
  readonly log: LogEvents;
  /** Which session cookie name to read (COOKIE_SECURE). */
  readonly cookieSecure: boolean;
  /** Whether a cookie can name the caller: not where callers bring their own credential. Default true. */
  readonly readsCookies?: boolean;
  /** The line of an answer given without a GraphQL result that should be audited, if any. */
  readonly answered?: (request: Request, response: Response, url: URL) => AuditEntry | undefined;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** Each request's client address (useClientAddress). */
  readonly addresses: ClientAddresses;
  /** The session id each request's cookie carries. */
  readonly sessionCookies: SessionCookies;
  /** Each request's Idempotency-Key mark (useIdempotency), where the pipeline has idempotency keys. */
  readonly idempotencyMarks?: IdempotencyMarks;
}

/** Codes that mean "not allowed": audited whatever the operation. */
const REFUSALS = ['RATE_LIMITED', 'CSRF_CHECK_FAILED', 'INVALID_CREDENTIALS', 'UNAUTHENTICATED'];
/** Arguments that name statements: the statements themselves, or their ids. */
const STATEMENT_ARGUMENTS = new Set(['statements', 'otxIds', 'uploaderIds']);
const MAX_UID = 254;

type Who = Pick<AuditFields, 'actor' | 'uid' | 'account' | 'environment' | 'session'>;

function who(identity: RequestIdentity | undefined): Who {
  return identity ? identity.description : { actor: 'anonymous' };
}

/** An attempted account name, if it looks like an e-mail: never a password typed into the wrong field. */
export function asEmail(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= MAX_UID && /^[^@\s]+@[^@\s]+$/.test(value) ? value : undefined;
}

/** The login attempt's account (an e-mail only: never a password typed into the wrong field). */
function loginAttempt(field: FieldNode, variables: Record<string, unknown>): Pick<Who, 'uid' | 'environment'> {
  const argument = (name: string) => {
    const node = field.arguments?.find((entry) => entry.name.value === name);
    return node ? valueFromASTUntyped(node.value, variables) : undefined;
  };
  const uid = asEmail(argument('email'));
  return { ...(uid ? { uid } : {}), environment: environmentFromEnum(argument('environment')) };
}

/** Per root field, the longest statement list among its arguments; summed over the fields. */
export function statementCount(fields: readonly FieldNode[], variables: Record<string, unknown>): number {
  let total = 0;
  for (const field of fields) {
    let most = 0;
    for (const argument of field.arguments ?? []) {
      if (!STATEMENT_ARGUMENTS.has(argument.name.value)) continue;
      const value: unknown = valueFromASTUntyped(argument.value, variables);
      most = Math.max(most, Array.isArray(value) ? value.length : value == null ? 0 : 1);
    }
    total += most;
  }
  return total;
}

/** The outcome of an answer the gateway did not build from a GraphQL result. */
export function httpOutcome(status: number, unauthorized: string): string {
  if (status === 401) return unauthorized;
  if (status === 429) return 'RATE_LIMITED';
  return status >= 400 ? `HTTP_${status}` : 'ok';
}

/** Any other 401, 403 or 429 answer (such as /metrics without its token). */
function refusedAnswer(status: number): AuditEntry | undefined {
  return [401, 403, 429].includes(status) ? { action: 'refused', outcome: httpOutcome(status, 'UNAUTHENTICATED'), actor: 'anonymous' } : undefined;
}

function codesOf(result: unknown): string[] {
  const errors = (result as { errors?: readonly { extensions?: { code?: unknown } }[] } | undefined)?.errors ?? [];
  return errors.map((error) => {
    const code = error.extensions?.code;
    return typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR';
  });
}

export function useAuditLog({ log, cookieSecure, readsCookies = true, answered, operations, addresses, sessionCookies, idempotencyMarks }: AuditLogOptions): Plugin<IdentityContext> {
  const variablesOf = new WeakMap<Request, Record<string, unknown>>();
  const contexts = new WeakMap<Request, IdentityContext>();
  /** The identity as execution began (logout removes it from the context). */
  const before = new WeakMap<Request, RequestIdentity>();
  const pending = new WeakMap<Request, AuditEntry>();

  return {
    onParams({ params, request }) {
      const variables = params.variables;
      if (variables && typeof variables === 'object' && !Array.isArray(variables)) variablesOf.set(request, variables);
    },

    onContextBuilding({ context }) {
      contexts.set(context.request, context);
    },

    onExecute({ args }) {
      const context = args.contextValue;
      if (context.identity) before.set(context.request, context.identity);
    },

    onResultProcess({ request, result }) {
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      const codes = codesOf(result);
      const refusal = REFUSALS.find((code) => codes.includes(code));
      const context = contexts.get(request);
      const executed = operations.get(request);
      const mutation = executed?.operation.operation === OperationTypeNode.MUTATION;
      if (!context || (!mutation && !refusal)) return;
      const variables = variablesOf.get(request) ?? {};
      const fields = executed?.fields ?? [];
      const names = [...new Set(fields.map((field) => field.name.value))];
      const login = fields.find((field) => field.name.value === 'login');
      const action = login ? 'login' : names.includes('logout') ? 'logout' : mutation ? 'mutation' : 'refused';
      // A login acts as the session it created; a failed one names the account it tried.
      const identity = context.identity ?? before.get(request);
      const cookieId = readsCookies ? sessionCookies.of(request, cookieSecure) : undefined;
      const actor = login && (!context.identity || codes.length)
        ? { actor: 'anonymous', ...loginAttempt(login, variables) }
        : !identity && cookieId !== undefined
          ? { actor: 'anonymous', session: sessionAuditId(sessionKey(cookieId)) } // refused before its session was looked up
          : who(identity);
      // A replayed answer ran nothing: its line says so, and its key's hash ties it to the run it replays.
      const idempotency = idempotencyMarks?.get(request);
      pending.set(request, {
        action,
        outcome: idempotency?.replayed ? 'idempotent.replayed' : (refusal ?? codes[0] ?? 'ok'),
        ...actor,
        fields: names,
        statements: statementCount(fields, variables),
        ...(idempotency ? { idempotencyKey: idempotency.keyHash } : {}),
      });
    },

    onResponse({ request, response }) {
      const url = new URL(request.url);
      const entry = pending.get(request) ?? answered?.(request, response, url) ?? refusedAnswer(response.status);
      if (!entry) return;
      const address = addresses.of(request);
      log.audit({ ...entry, status: response.status, path: url.pathname, clientAddress: address });
    },
  };
}
