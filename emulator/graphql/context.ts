import { GraphQLError } from 'graphql';
import type { Account } from '../accounts';
import type { EmulatorState } from '../state';
import type { StatementStore, StoredStatement } from '../statements';
import { statementView } from '../statements';

export interface EmulatorContext {
  readonly state: EmulatorState;
  /** The signed-in account; null only for the operations that need no credential. */
  readonly account: Account | null;
}

export function storeOf(ctx: EmulatorContext): StatementStore {
  // The HTTP layer refuses unauthenticated calls to every protected operation before execution.
  if (!ctx.account) throw new GraphQLError('You need to sign in or sign up before continuing.');
  return ctx.state.storeOf(ctx.account.id);
}

/** A statement object for GraphQL: its fields, with the PDF rendered only when selected. */
export function nodeOf(ctx: EmulatorContext, s: StoredStatement): Record<string, unknown> {
  return { ...statementView(s), pdf: () => ctx.state.pdfOf(s) };
}

export interface IdArgs {
  otxIds?: string[] | null;
  uploaderIds?: string[] | null;
}

export const NO_IDS_ERROR = 'Supply otxIds or uploaderIds to choose the statements';

export function hasIds(args: IdArgs): boolean {
  return args.otxIds != null || args.uploaderIds != null;
}

export function labelOf(s: StoredStatement): string {
  return s.data.uploaderId != null ? String(s.data.uploaderId) : s.otxId;
}
