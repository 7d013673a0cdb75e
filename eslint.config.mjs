// Lint: typescript-eslint's type-aware recommended rules, plus a ban on explicit `any`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // examples/*/src/gql/ is GraphQL Code Generator's output (checked against the schema by test/e2e/spa.test.ts
  // and test/e2e/client-recipes.test.ts).
  { ignores: ['node_modules/', '.mesh/', '.mesh-build/', 'dist/', 'coverage/', 'bench/results/', '.scratch/', 'examples/spa/src/gql/', 'examples/recipes/src/gql/', 'examples/spa/dist/', 'examples/.spa-build-*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Tests read parsed JSON answers (GraphQL data of many shapes) and let the assertions check
    // the shape; typing each answer would restate the schema. Explicit `any` stays banned.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // The /ops page's script runs in the browser, as a classic script, with Chart.js global.
    files: ['src/ops/assets/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'script',
      globals: { window: 'readonly', document: 'readonly', location: 'readonly', fetch: 'readonly', URLSearchParams: 'readonly', setTimeout: 'readonly', sessionStorage: 'readonly', Chart: 'readonly' },
    },
  },
  {
    // GraphiQL's bootstrap runs in the browser, as a classic script, before GraphiQL's bundle.
    files: ['src/ops/graphiql/assets/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'script',
      globals: { self: 'writable', document: 'readonly', location: 'readonly', URL: 'readonly', YogaGraphiQL: 'readonly' },
    },
  },
);
