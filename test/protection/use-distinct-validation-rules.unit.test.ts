/**
 * useDistinctValidationRules, in process: with graphql-js's rules registered twice (as Yoga and
 * Mesh both do in the gateway), each validation error is reported once. In-process specs are
 * `<plugin>.unit.test.ts` beside the area's other tests (test/support/yoga.ts).
 */
import { NoSchemaIntrospectionCustomRule, specifiedRules } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { useDistinctValidationRules } from '../../src/protection/use-distinct-validation-rules';
import { yogaWith } from '../support/yoga';

/** What Mesh adds on top of Yoga's own copy of graphql-js's rules. */
const useRulesAgain = (): Plugin => ({
  onValidate({ addValidationRule }) {
    for (const rule of specifiedRules) addValidationRule(rule);
  },
});

describe('useDistinctValidationRules', () => {
  it('reports each validation error once when the specified rules are registered twice', async () => {
    const twice = await yogaWith([useRulesAgain()]).graphql('{ nope }');
    expect(twice.body.errors).toHaveLength(2); // the failure this plugin exists for
    const once = await yogaWith([useRulesAgain(), useDistinctValidationRules()]).graphql('{ nope }');
    expect(once.codes).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(once.body.errors?.[0]?.message).toMatch(/^Cannot query field "nope" on type "Query"/);
  });

  it('keeps every distinct rule, including ones another plugin added once', async () => {
    const noIntrospection: Plugin = { onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule) };
    const answer = await yogaWith([useRulesAgain(), noIntrospection, useDistinctValidationRules()]).graphql('{ __schema { queryType { name } } nope }');
    expect(answer.body.errors?.map((error) => error.message).sort()).toEqual([
      'Cannot query field "nope" on type "Query".',
      'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
      'GraphQL introspection has been disabled, but the requested query contained the field "queryType".',
    ]);
  });

  it('leaves validation each of the rules exactly once, in their first order', async () => {
    let seen: unknown[] = [];
    const observe: Plugin = { onValidate: ({ params }) => void (seen = [...(params.rules ?? [])]) };
    await yogaWith([useRulesAgain(), useDistinctValidationRules(), observe]).graphql('{ hello }');
    expect(seen).toEqual([...specifiedRules]);
  });

  it('lets a valid document through untouched', async () => {
    expect((await yogaWith([useRulesAgain(), useDistinctValidationRules()]).graphql('{ hello }')).body).toEqual({ data: { hello: 'world' } });
  });
});
