/**
 * Yoga and Mesh each register graphql-js's specified validation rules, so every document was
 * validated twice and every validation error reported twice. Keeps one copy of each rule.
 */
import type { Plugin } from 'graphql-yoga';

export function useDistinctValidationRules(): Plugin {
  // The same rules array comes with every request: its verdict is kept (already distinct, or made so).
  const distinct = new WeakSet<unknown[]>();
  return {
    onValidate({ params }) {
      const rules = params.rules as unknown[] | undefined;
      if (!rules || rules.length < 2 || distinct.has(rules)) return;
      const unique = [...new Set(rules)];
      if (unique.length !== rules.length) {
        rules.length = 0;
        rules.push(...unique);
      }
      distinct.add(rules);
    },
  };
}
