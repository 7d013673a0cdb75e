/**
 * Yoga and Mesh each register graphql-js's specified validation rules, so every document was
 * validated twice and every validation error reported twice. Keeps one copy of each rule.
 */
import type { Plugin } from 'graphql-yoga';

export function useDistinctValidationRules(): Plugin {
  return {
    onValidate({ params }) {
      const rules = params.rules as unknown[] | undefined;
      if (!rules || rules.length < 2) return;
      const unique = [...new Set(rules)];
      if (unique.length === rules.length) return;
      rules.length = 0;
      rules.push(...unique);
    },
  };
}
