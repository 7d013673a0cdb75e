/**
 * Whether a request counts as a browser session's activity (moves its idle timeout on). Every
 * request does, but one that only reads `session(touch: false)`: a page that shows the time left
 * must be able to ask without keeping an idle session alive, or an idle tab never signs out.
 */
import { valueFromASTUntyped, type FieldNode } from 'graphql';

const READ_ONLY_FIELDS = new Set(['session', '__typename']);

function touchArgument(field: FieldNode, variables: Readonly<Record<string, unknown>>): unknown {
  const argument = field.arguments?.find((candidate) => candidate.name.value === 'touch');
  // `touch: Boolean = true`: absent (or null, which the resolver reads as the default) is a touch.
  return argument ? valueFromASTUntyped(argument.value, variables) : true;
}

export function countsAsActivity(fields: readonly FieldNode[], variables: Readonly<Record<string, unknown>> = {}): boolean {
  const sessions = fields.filter((field) => field.name.value === 'session');
  if (sessions.length === 0 || fields.some((field) => !READ_ONLY_FIELDS.has(field.name.value))) return true;
  return sessions.some((field) => touchArgument(field, variables) !== false);
}
