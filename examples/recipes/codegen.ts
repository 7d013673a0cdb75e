/**
 * GraphQL Code Generator for the Apollo Client and urql recipes: typed DocumentNodes (what both
 * libraries take) from the gateway's committed schema, with `__typename` added to every selection
 * set, as both normalised caches add it before sending. The manifest, src/gql/persisted-documents.json,
 * then holds the very documents the libraries send, keyed by the SHA-256 codegen also puts in each
 * document's `__meta__.hash`: the hash both recipes send.
 */
import { addTypenameSelectionDocumentTransform, type ClientPresetConfig } from '@graphql-codegen/client-preset';
import type { CodegenConfig } from '@graphql-codegen/cli';

const here = (relative: string) => new URL(relative, import.meta.url).pathname;

const presetConfig: ClientPresetConfig = {
  persistedDocuments: { hashAlgorithm: 'sha256' },
  fragmentMasking: false,
};

const config: CodegenConfig = {
  schema: here('../../schema/gateway.graphql'),
  documents: [here('src/operations.ts')],
  ignoreNoDocuments: false,
  generates: {
    [here('src/gql/')]: {
      preset: 'client',
      presetConfig,
      documentTransforms: [addTypenameSelectionDocumentTransform],
      config: { useTypeImports: true, enumsAsTypes: true, scalars: { Date: 'string' }, onlyOperationTypes: true },
    },
  },
};

export default config;
