/**
 * GraphQL Code Generator: typed documents for the `graphql()` calls in src/, from the gateway's
 * committed public schema. `persistedDocuments` also writes src/gql/persisted-documents.json,
 * `{ "<sha256 hex of the document>": "<document>" }`, the manifest TRUSTED_DOCUMENTS_FILE reads.
 * Paths are relative to this file, so `npx graphql-codegen` and the browser test agree.
 */
import type { CodegenConfig } from '@graphql-codegen/cli';

const here = (relative: string) => new URL(relative, import.meta.url).pathname;

const config: CodegenConfig = {
  schema: here('../../schema/gateway.graphql'),
  documents: [here('src/**/*.ts'), `!${here('src/gql/**')}`],
  ignoreNoDocuments: false,
  generates: {
    [here('src/gql/')]: {
      preset: 'client',
      presetConfig: {
        persistedDocuments: { hashAlgorithm: 'sha256' },
        fragmentMasking: false,
      },
      config: {
        // Documents as strings: the page POSTs them with fetch and needs no GraphQL library.
        documentMode: 'string',
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { Date: 'string' },
        // Only the types the page's documents use, not the whole schema.
        onlyOperationTypes: true,
      },
    },
  },
};

export default config;
