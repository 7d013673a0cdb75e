/**
 * The live upstream's schema, by introspection: the one query the upstream schema check sends
 * (ops/upstream-schema-check.ts). Descriptions are not asked for (no comparison reads them, and
 * they are a third of the answer); deprecated arguments and input fields are (`includeDeprecated`,
 * which graphql-ruby serves), or a newly deprecated one would look removed.
 */
import { buildClientSchema, getIntrospectionQuery, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

export const INTROSPECTION_QUERY = getIntrospectionQuery({ descriptions: false, inputValueDeprecation: true });

/** Its operation name in the query above, sent beside it. */
export const INTROSPECTION_OPERATION = 'IntrospectionQuery';

/** An answer that holds no usable schema: its message is for operators (never a token or body dump). */
export class IntrospectionError extends Error {}

/** Messages of a GraphQL `errors` list, as the upstream (graphql-ruby or a proxy) wrote them. */
function errorMessages(errors: unknown): string {
  if (!Array.isArray(errors)) return '';
  return errors.slice(0, 3).map((error) => (typeof error === 'string' ? error : typeof (error as { message?: unknown })?.message === 'string' ? (error as { message: string }).message : '?')).join('; ').slice(0, 300);
}

/** The schema an introspection answer (status and body) describes; throws an IntrospectionError. */
export function schemaFromAnswer(status: number, body: string): GraphQLSchema {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new IntrospectionError(`the upstream answered HTTP ${status} with a body that is not JSON`);
  }
  const { data, errors } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { data?: Partial<IntrospectionQuery> | null; errors?: unknown };
  if (status !== 200 || !data?.__schema) {
    const said = errorMessages(errors);
    throw new IntrospectionError(`the upstream answered HTTP ${status} without a schema${said ? `: ${said}` : ''}`);
  }
  try {
    return buildClientSchema(data as IntrospectionQuery);
  } catch (error) {
    throw new IntrospectionError(`the upstream's introspection answer is not a valid schema: ${error instanceof Error ? error.message : String(error)}`);
  }
}
