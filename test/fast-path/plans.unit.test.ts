/**
 * Which operations the fast path forwards (src/fast-path/plans.ts), against the upstream's
 * committed schema, and that the gateway's own resolvers are never among them.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { resolvers } from '../../additional-resolvers';
import { DocumentPlans, GATEWAY_RESOLVED_FIELDS } from '../../src/fast-path/plans';
import { DocumentFacts } from '../../src/request/executed';
import { upstreamSchema } from '../support/upstream-schema';

const upstream = upstreamSchema();

function planned(text: string, operationName?: string) {
  const documents = new DocumentFacts();
  const plans = new DocumentPlans(documents);
  plans.learnUpstream(upstream);
  const executed = documents.executedOperation(parse(text), operationName);
  return executed && plans.planOf(executed);
}

describe('plans', () => {
  it('lists every upstream field the gateway resolves itself', () => {
    const upstreamFields = new Set([...Object.keys(upstream.getQueryType()?.getFields() ?? {}), ...Object.keys(upstream.getMutationType()?.getFields() ?? {})]);
    const resolved = [...Object.keys(resolvers.Query), ...Object.keys(resolvers.Mutation)].filter((name) => upstreamFields.has(name));
    expect(resolved.sort()).toEqual([...GATEWAY_RESOLVED_FIELDS].sort());
  });

  it('forwards queries and mutations of upstream fields, with their root keys and the printed document', () => {
    const plan = planned('query Q { a: secretGreeting { response } ...F } fragment F on Query { getFw2Statements { errors } __typename }');
    expect(plan?.kind).toBe('query');
    expect(plan?.roots).toMatchObject([
      { key: 'a', name: 'secretGreeting', nonNull: false },
      { key: 'getFw2Statements', name: 'getFw2Statements', nonNull: false },
    ]);
    expect(plan?.label).toBe('secretGreeting');
    expect([...(plan?.responseKeys ?? [])]).toEqual(['a', 'getFw2Statements', '__typename']);
    expect(plan?.query).toContain('fragment F on Query');
    expect(planned('mutation($ids: [String!]) { deleteStatements(otxIds: $ids) { errors } }')?.variableDefinitions).toHaveLength(1);
  });

  it('picks the operation as graphql-js does', () => {
    const text = 'query A { secretGreeting { response } } query B { session { uid } }';
    expect(planned(text, 'A')?.label).toBe('secretGreeting');
    expect(planned(text, 'B')).toBeUndefined();
    expect(planned(text)).toBeUndefined();
    expect(planned(text, 'C')).toBeUndefined();
    // Only the selected operation and its fragments go upstream, never a sibling's text.
    const mixed = planned('query A { ...G } mutation B { login(email: "e", password: "secret") { uid } } fragment G on Query { secretGreeting { response } } fragment U on Query { session { uid } }', 'A');
    expect(mixed?.query).toContain('fragment G on Query');
    expect(mixed?.query).not.toMatch(/login|secret"|session/);
    expect(planned('query A($a: Int, $b: String) { secretGreeting { response } }', 'A')?.variableNames).toEqual(['a', 'b']);
  });

  it.each([
    ['a gateway field', '{ session { uid } }'],
    ['a gateway field beside an upstream one', '{ session { uid } secretGreeting { response } }'],
    ['a field the gateway resolves itself', '{ statementDefinitions { errors } }'],
    ['introspection', '{ __schema { types { name } } secretGreeting { response } }'],
    ['only __typename', '{ __typename }'],
    ['a PDF', '{ getStatements { statements { nodes { pdf } } } }'],
    ['a PDF in a fragment', 'query { getStatements { ...S } } fragment S on GetStatementsPayload { statements { nodes { pdf } } }'],
    ['login', 'mutation { login(email: "a", password: "b") { uid } }'],
    ['a subscription', 'subscription { secretGreeting { response } }'],
  ])('leaves %s to Mesh', (_name, text) => {
    expect(planned(text)).toBeUndefined();
  });

  it('forwards nothing before it knows the upstream schema, and keeps one plan per document and name', () => {
    const documents = new DocumentFacts();
    const plans = new DocumentPlans(documents);
    const document = parse('{ secretGreeting { response } }');
    const operation = () => documents.executedOperation(document, undefined) ?? expect.fail('no operation');
    expect(plans.planOf(operation())).toBeUndefined();
    plans.learnUpstream(upstream);
    const first = plans.planOf(operation());
    expect(first).toBeDefined();
    expect(plans.planOf(operation())).toBe(first);
    expect(plans.precompile([document, parse('query A { secretGreeting { response } } query B { secretGreeting { response } }')])).toBe(3);
  });
});
