/**
 * Where a document becomes hot (hot-documents.ts), on purpose rather than as a side effect of
 * another step: this plugin's onExecute is placed in the gateway's execute steps
 * (src/gateway/execute-steps.ts) after every step that may refuse a request, so that reaching it
 * means the request passed everything the hot path relies on:
 * - parsing, validation and the query limits (envelop runs every onExecute after them; the last
 *   limit, the PDFs per answer, is an onExecute placed before every execute step), all decided by
 *   the document alone for a hot document: it selects no PDF, so no limit reads its variables;
 * - the CSRF check, the identity, the rate limits and idempotency, which the hot path runs again
 *   for each request of its own.
 * The document is then hot when its plan makes it one: an upstream query forwarded as one call, or
 * a text selecting only `statementDefinitions` that the definitions answers serve for its identity.
 * test/gateway/execute-steps.unit.test.ts keeps it after the checks; test/http/hot-documents.test.ts
 * shows a refused request never makes its document hot.
 */
import type { Plugin } from 'graphql-yoga';
import type { DefinitionsAnswers } from '../cache/definitions-answers';
import type { IdentityContext } from '../identity/use-identity';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';
import type { HotDocuments } from './hot-documents';
import type { DocumentPlans } from './plans';

export interface HotDocumentsOptions {
  readonly hot: HotDocuments;
  readonly plans: DocumentPlans;
  /** Which definitions reads the definitions answers serve (answered on the hot path only as a hit). */
  readonly definitions: DefinitionsAnswers;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
}

type ParamsContext = IdentityContext & { readonly params?: { readonly query?: unknown } };

export function useHotDocuments({ hot, plans, definitions, operations }: HotDocumentsOptions): Plugin<IdentityContext> {
  return {
    onExecute({ args }) {
      const context = args.contextValue as ParamsContext;
      const executed = operations.get(context.request);
      if (!executed) return;
      const query = context.params?.query;
      const text = typeof query === 'string' ? query : undefined;
      const plan = plans.planOf(executed) ?? (text !== undefined && definitions.serves(context.identity, executed) ? 'definitions' : undefined);
      if (plan) hot.executed(executed, plan, text);
    },
  };
}
