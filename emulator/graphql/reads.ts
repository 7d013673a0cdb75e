/**
 * The read operations: `secretGreeting`, `statementDefinitions`, `getStatements` (cursor paging as
 * graphql-ruby's ArrayConnection does it) and `get<Form>Statements` (the spec's four rules).
 */
import { GraphQLError } from 'graphql';
import { FORMS, type FormSpec } from '../../sources/statement-filing-service/catalogue';
import type { StoredStatement } from '../statements';
import { nodeOf, storeOf, type EmulatorContext, type IdArgs } from './context';

/** The most statements one call returns (spec: Limits). */
export const PAGE_LIMIT = 100;

const encodeCursor = (index: number): string => Buffer.from(String(index + 1)).toString('base64');

function decodeCursor(cursor: string): number {
  const n = Number(Buffer.from(cursor, 'base64').toString('utf8'));
  if (!Number.isInteger(n) || n < 1) throw new GraphQLError(`Invalid cursor: ${JSON.stringify(cursor)}`);
  return n - 1;
}

interface PageArgs extends IdArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

function connection(ctx: EmulatorContext, all: StoredStatement[], from: number, to: number, hasPrev: boolean, hasNext: boolean): Record<string, unknown> {
  const edges = all.slice(from, to).map((s, i) => ({ cursor: encodeCursor(from + i), node: nodeOf(ctx, s) }));
  return {
    pageInfo: {
      hasNextPage: hasNext,
      hasPreviousPage: hasPrev,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    edges,
    nodes: edges.map((e) => e.node),
  };
}

function pageSize(value: number | null | undefined, name: string): number | null {
  if (value == null) return null;
  if (value < 0) throw new GraphQLError(`Argument '${name}' must be 0 or more`);
  return Math.min(value, PAGE_LIMIT);
}

/** Relay paging over the matching statements, never more than PAGE_LIMIT at once. */
function page(ctx: EmulatorContext, all: StoredStatement[], args: PageArgs): Record<string, unknown> {
  let from = args.after != null ? Math.min(decodeCursor(args.after) + 1, all.length) : 0;
  let to = args.before != null ? Math.min(decodeCursor(args.before), all.length) : all.length;
  if (to < from) to = from;
  const first = pageSize(args.first, 'first');
  const last = pageSize(args.last, 'last');
  const windowEnd = to;
  const windowStart = from;
  if (first !== null) to = Math.min(to, from + first);
  if (last !== null) from = Math.max(from, to - last);
  if (first === null && last === null) to = Math.min(to, from + PAGE_LIMIT);
  // graphql-ruby's ArrayConnection: a `before` cursor past the start means there is a next page.
  const hasNext = args.before != null ? windowEnd > 0 : to < windowEnd;
  const hasPrev = last !== null ? from > windowStart : windowStart > 0;
  return connection(ctx, all, from, to, hasPrev, hasNext);
}

function getFormStatements(form: FormSpec) {
  return (_: unknown, args: IdArgs, ctx: EmulatorContext) => {
    const all = storeOf(ctx).select(args, form);
    return { errors: [], statements: connection(ctx, all, 0, Math.min(all.length, PAGE_LIMIT), false, all.length > PAGE_LIMIT) };
  };
}

export function readResolvers(): Record<string, unknown> {
  return {
    secretGreeting: (_: unknown, _args: unknown, ctx: EmulatorContext) => ({
      response: `Hello, ${ctx.account?.email ?? 'stranger'}! Your credential works.`,
      errors: [],
    }),
    statementDefinitions: (_: unknown, _args: unknown, ctx: EmulatorContext) => ({
      errors: [],
      definitions: FORMS.map((form) => ({
        identifier: form.metadata.identifier,
        name: form.metadata.name,
        title: form.metadata.title,
        description: form.metadata.description,
        recipientName: form.metadata.recipientName,
        senderName: form.metadata.senderName,
        blankForm: () => ctx.state.blankFormOf(form),
        fields: form.fields,
      })),
    }),
    getStatements: (_: unknown, args: PageArgs, ctx: EmulatorContext) => ({
      errors: [],
      statements: page(ctx, storeOf(ctx).select(args), args),
    }),
    ...Object.fromEntries(FORMS.map((f) => [f.operations.get, getFormStatements(f)])),
  };
}
