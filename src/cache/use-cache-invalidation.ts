/**
 * Every mutation through the gateway invalidates what it can have changed, before the client
 * gets its answer: the identity's cached statement reads, and the PDFs of the statements it
 * names (by otxId or uploaderId; all of the identity's PDFs when it names none, as a finalize or
 * submit of everything does). It drops them before the mutation runs and again after it: a read
 * racing the mutation cannot keep stale data, because a drop also changes the group's
 * generation and the racing read's write is then skipped.
 */
import { getVariableValues, OperationTypeNode, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { getArgumentValues } from 'graphql/execution/values';
import type { Plugin } from 'graphql-yoga';
import type { IdentityContext } from '../identity/use-identity';
import { identityScope } from './scope';
import { cacheKeys, type CacheStore, type GroupSelection } from './cache-store';
import type { ExecutedOperation } from '../request/executed';
import { SESSION_FIELDS } from '../request/root-fields';
import type { RequestSlot } from '../request/slot';
import type { UpstreamOutcomes } from '../upstream/outcome';

export interface CacheInvalidationOptions {
  readonly store: CacheStore;
  /** The executed operation of each request (request/executed.ts). */
  readonly operations: RequestSlot<ExecutedOperation>;
  /** Each request's upstream outcome (upstream/outcome.ts). */
  readonly outcomes: UpstreamOutcomes;
}

/** Mutations that change nothing a cache holds. */
const HARMLESS = new Set([...SESSION_FIELDS, 'confirmRegistration', '__typename']);
const ADD = /^add\w+Statements$/;
const UPDATE = /^update\w+Statements$/;
const BY_IDS = new Set(['deleteStatements', 'finalizeStatements', 'submitStatements']);

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/**
 * The PDFs a mutation can have changed: none, some (by id or alias), or all of the identity's.
 * Variables are coerced as execution will coerce them (a single item becomes a list).
 */
export function touchedPdfs(schema: GraphQLSchema, operation: OperationDefinitionNode, fields: readonly FieldNode[], raw: Record<string, unknown> | undefined): GroupSelection | undefined {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], raw ?? {});
  if (coerced.errors) return 'all';
  const variables = coerced.coerced;
  const ids = new Set<string>();
  const aliases = new Set<string>();
  const mutationFields = schema.getMutationType()?.getFields() ?? {};
  for (const node of fields) {
    const name = node.name.value;
    if (HARMLESS.has(name) || ADD.test(name)) continue;
    const definition = mutationFields[name];
    if (!definition) return 'all';
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(definition, node, variables);
    } catch {
      return 'all';
    }
    if (UPDATE.test(name)) {
      for (const statement of Array.isArray(args.statements) ? (args.statements as unknown[]) : []) {
        const { otxId, uploaderId } = (statement ?? {}) as { otxId?: unknown; uploaderId?: unknown };
        if (typeof otxId === 'string') ids.add(otxId);
        if (typeof uploaderId === 'string') aliases.add(uploaderId);
        if (typeof otxId !== 'string' && typeof uploaderId !== 'string') return 'all';
      }
    } else if (BY_IDS.has(name)) {
      const named = [...strings(args.otxIds), ...strings(args.uploaderIds)];
      // No ids: the upstream applies it to every statement of the account.
      if (named.length === 0) return 'all';
      for (const id of strings(args.otxIds)) ids.add(id);
      for (const alias of strings(args.uploaderIds)) aliases.add(alias);
    } else {
      return 'all';
    }
  }
  return ids.size || aliases.size ? { ids: [...ids], aliases: [...aliases] } : undefined;
}

/**
 * Drops what the caches hold for an identity's scope: its statement reads, and its PDFs as
 * `pdfs` selects them (none when undefined). Also used by the drop-in front for a mutation it
 * passes through without running it.
 */
export async function dropIdentityCaches(store: CacheStore, scope: string, pdfs: GroupSelection | undefined): Promise<void> {
  await Promise.all([
    store.dropMembers(cacheKeys.reads(scope), 'all'),
    pdfs === undefined ? undefined : store.dropMembers(cacheKeys.pdfs(scope), pdfs),
  ]);
}

export function useCacheInvalidation({ store, operations, outcomes }: CacheInvalidationOptions): Plugin<IdentityContext> {
  return {
    async onExecute({ args }) {
      const context = args.contextValue;
      const executed = operations.get(context.request);
      if (executed?.operation.operation !== OperationTypeNode.MUTATION) return;
      const { operation, fields } = executed;
      if (fields.every((field) => HARMLESS.has(field.name.value))) return;
      const pdfs = touchedPdfs(args.schema as GraphQLSchema, operation, fields, args.variableValues as Record<string, unknown> | undefined);
      const scopeNow = () => {
        const current = context.identity;
        return current ? identityScope(context.upstream.cacheNamespace, current.credential().uid) : undefined;
      };
      const invalidate = (scope: string) => dropIdentityCaches(store, scope, pdfs);
      // An identity caches may not trust names its uid itself: it may drop that uid's caches only
      // once the upstream answered it (so a forged one cannot empty them).
      const trusted = context.identity?.cacheTrusted === true;
      const before = trusted ? scopeNow() : undefined;
      if (before) await invalidate(before);
      return {
        onExecuteDone: async () => {
          if (!trusted && !outcomes.of(context.request).answered) return;
          // A `login` earlier in the same document switches the identity the rest runs as.
          const after = scopeNow();
          await Promise.all([before && invalidate(before), after && after !== before ? invalidate(after) : undefined]);
        },
      };
    },
  };
}
