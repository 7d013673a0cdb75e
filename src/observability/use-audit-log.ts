/**
 * The audit trail: one `audit` log line for every mutation (login and logout included), every
 * refused request (UNAUTHENTICATED, INVALID_CREDENTIALS, CSRF_CHECK_FAILED, RATE_LIMITED, and any
 * 401/403/429 answer elsewhere, such as /metrics without its token) and every sign-in or sign-out
 * through the drop-in front. It says who (the identity's kind, uid or account, environment, a
 * short hash of the session), from where (client address; the request id comes with every line),
 * what (root fields, how many statements the arguments name) and how it ended (`ok` or the error
 * code, and the status). A mutation answered again from its Idempotency-Key's record ends
 * `idempotent.replayed`, and the key's hash is on its line and on the run's: a replay never reads
 * as a second filing. A mutation the drop-in front passes to the upstream without running it
 * (its credential not verified yet) is written too, from what the front read of its document,
 * naming the uid only when the upstream's answer authenticated it. It never holds an argument's value but the login's e-mail: no password,
 * credential, cookie, TIN or PDF.
 *
 * Placed after the error mapping, so it reads the codes the client gets; the line is written when
 * the answer leaves (onResponse), with its status.
 */
import { OperationTypeNode, valueFromASTUntyped, type FieldNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { dropInStateOf } from '../drop-in/state';
import { environmentFromEnum } from '../environment';
import { executedOf } from '../gateway/executed';
import { idempotencyMarkOf } from '../idempotency/audit-mark';
import type { RequestIdentity } from '../identity/identity';
import type { IdentityContext } from '../identity/use-identity';
import { clientAddressOf } from '../protection/client-address';
import { sessionCookieOf } from '../session/cookie';
import { sessionAuditId, sessionKey } from '../session/sessions';
import type { AuditFields, LogEvents } from './log-events';

export interface AuditLogOptions {
  readonly log: LogEvents;
  /** Which session cookie name to read (COOKIE_SECURE). */
  readonly cookieSecure: boolean;
}

/** Codes that mean "not allowed": audited whatever the operation. */
const REFUSALS = ['RATE_LIMITED', 'CSRF_CHECK_FAILED', 'INVALID_CREDENTIALS', 'UNAUTHENTICATED'];
/** Arguments that name statements: the statements themselves, or their ids. */
const STATEMENT_ARGUMENTS = new Set(['statements', 'otxIds', 'uploaderIds']);
const FRONT_AUTH = /\/v2\/auth\/(sign_in|sign_out)$/;
const MAX_UID = 254;

type Who = Pick<AuditFields, 'actor' | 'uid' | 'account' | 'environment' | 'session'>;
type Pending = Omit<AuditFields, 'status' | 'path' | 'clientAddress'>;

function who(identity: RequestIdentity | undefined): Who {
  return identity ? identity.description : { actor: 'anonymous' };
}

/** An attempted account name, if it looks like an e-mail: never a password typed into the wrong field. */
function asEmail(value: unknown): string | undefined {
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
function statementCount(fields: readonly FieldNode[], variables: Record<string, unknown>): number {
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

/** The environment a drop-in front request acted in: its path's prefix, else X-Upstream-Environment. */
function frontEnvironmentOf(url: URL, request: Request): 'production' | 'sandbox' {
  const production = url.pathname.startsWith('/production/') || request.headers.get('x-upstream-environment')?.trim().toLowerCase() === 'production';
  return production ? 'production' : 'sandbox';
}

/** The outcome of an answer the gateway did not build from a GraphQL result. */
function httpOutcome(status: number, unauthorized: string): string {
  if (status === 401) return unauthorized;
  if (status === 429) return 'RATE_LIMITED';
  return status >= 400 ? `HTTP_${status}` : 'ok';
}

function codesOf(result: unknown): string[] {
  const errors = (result as { errors?: readonly { extensions?: { code?: unknown } }[] } | undefined)?.errors ?? [];
  return errors.map((error) => {
    const code = error.extensions?.code;
    return typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR';
  });
}

export function useAuditLog({ log, cookieSecure }: AuditLogOptions): Plugin<IdentityContext> {
  const variablesOf = new WeakMap<Request, Record<string, unknown>>();
  const contexts = new WeakMap<Request, IdentityContext>();
  /** The identity as execution began (logout removes it from the context). */
  const before = new WeakMap<Request, RequestIdentity>();
  const pending = new WeakMap<Request, Pending>();

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
      const executed = executedOf(request);
      const mutation = executed?.operation.operation === OperationTypeNode.MUTATION;
      if (!context || (!mutation && !refusal)) return;
      const variables = variablesOf.get(request) ?? {};
      const fields = executed?.fields ?? [];
      const names = [...new Set(fields.map((field) => field.name.value))];
      const login = fields.find((field) => field.name.value === 'login');
      const action = login ? 'login' : names.includes('logout') ? 'logout' : mutation ? 'mutation' : 'refused';
      // A login acts as the session it created; a failed one names the account it tried.
      const identity = context.identity ?? before.get(request);
      // The drop-in front's requests act with their own credential: a cookie there means nothing.
      const cookieId = dropInStateOf(request) ? undefined : sessionCookieOf(request, cookieSecure);
      const actor = login && (!context.identity || codes.length)
        ? { actor: 'anonymous', ...loginAttempt(login, variables) }
        : !identity && cookieId !== undefined
          ? { actor: 'anonymous', session: sessionAuditId(sessionKey(cookieId)) } // refused before its session was looked up
          : who(identity);
      // A replayed answer ran nothing: its line says so, and its key's hash ties it to the run it replays.
      const idempotency = idempotencyMarkOf(request);
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
      let entry = pending.get(request);
      const front = FRONT_AUTH.exec(url.pathname)?.[1];
      if (!entry && front) {
        // The drop-in front's own sign-in and sign-out: the upstream's answer names the account.
        // A refused sign-in names the account it tried, as a refused login does (an e-mail only).
        const uid = response.headers.get('uid') ?? (front === 'sign_in' ? asEmail(dropInStateOf(request)?.signInEmail) : undefined);
        entry = {
          action: front === 'sign_in' ? 'front.sign-in' : 'front.sign-out',
          outcome: response.ok ? 'ok' : httpOutcome(response.status, front === 'sign_in' ? 'INVALID_CREDENTIALS' : 'UNAUTHENTICATED'),
          actor: 'drop-in',
          ...(uid ? { uid: uid.slice(0, MAX_UID) } : {}),
          environment: frontEnvironmentOf(url, request),
        };
      }
      const passed = dropInStateOf(request);
      if (!entry && passed?.passedMutation) {
        // Passed through (or refused by the front): the upstream's answer names the uid it authenticated.
        const { fields, variables } = passed.passedMutation;
        const uid = response.headers.get('uid');
        entry = {
          action: 'mutation',
          outcome: passed.refusedWith ?? httpOutcome(response.status, 'UNAUTHENTICATED'),
          actor: 'drop-in',
          ...(uid ? { uid: uid.slice(0, MAX_UID) } : {}),
          environment: frontEnvironmentOf(url, request),
          fields: [...new Set(fields.map((field) => field.name.value))],
          statements: statementCount(fields, variables),
        };
      }
      if (!entry && [401, 403, 429].includes(response.status)) {
        entry = { action: 'refused', outcome: httpOutcome(response.status, 'UNAUTHENTICATED'), actor: 'anonymous' };
      }
      if (!entry) return;
      const address = clientAddressOf(request);
      log.audit({ ...entry, status: response.status, path: url.pathname, clientAddress: address });
    },
  };
}
