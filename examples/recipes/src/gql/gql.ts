/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  mutation RecipeLogin($email: String!, $password: String!) {\n    login(email: $email, password: $password) { uid environment idleExpiresInSeconds }\n  }\n": typeof types.RecipeLoginDocument,
    "\n  mutation RecipeLogout {\n    logout\n  }\n": typeof types.RecipeLogoutDocument,
    "\n  query RecipeStatements($first: Int) {\n    getStatements(first: $first) {\n      errors\n      statements { nodes { otxId uploaderId formType taxYear statusDescription } }\n    }\n  }\n": typeof types.RecipeStatementsDocument,
    "\n  query RecipeW2($uploaderIds: [String!]) {\n    getFw2Statements(uploaderIds: $uploaderIds) {\n      errors\n      statements { nodes { otxId uploaderId recipientFirstName } }\n    }\n  }\n": typeof types.RecipeW2Document,
};
const documents: Documents = {
    "\n  mutation RecipeLogin($email: String!, $password: String!) {\n    login(email: $email, password: $password) { uid environment idleExpiresInSeconds }\n  }\n": types.RecipeLoginDocument,
    "\n  mutation RecipeLogout {\n    logout\n  }\n": types.RecipeLogoutDocument,
    "\n  query RecipeStatements($first: Int) {\n    getStatements(first: $first) {\n      errors\n      statements { nodes { otxId uploaderId formType taxYear statusDescription } }\n    }\n  }\n": types.RecipeStatementsDocument,
    "\n  query RecipeW2($uploaderIds: [String!]) {\n    getFw2Statements(uploaderIds: $uploaderIds) {\n      errors\n      statements { nodes { otxId uploaderId recipientFirstName } }\n    }\n  }\n": types.RecipeW2Document,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RecipeLogin($email: String!, $password: String!) {\n    login(email: $email, password: $password) { uid environment idleExpiresInSeconds }\n  }\n"): (typeof documents)["\n  mutation RecipeLogin($email: String!, $password: String!) {\n    login(email: $email, password: $password) { uid environment idleExpiresInSeconds }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RecipeLogout {\n    logout\n  }\n"): (typeof documents)["\n  mutation RecipeLogout {\n    logout\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RecipeStatements($first: Int) {\n    getStatements(first: $first) {\n      errors\n      statements { nodes { otxId uploaderId formType taxYear statusDescription } }\n    }\n  }\n"): (typeof documents)["\n  query RecipeStatements($first: Int) {\n    getStatements(first: $first) {\n      errors\n      statements { nodes { otxId uploaderId formType taxYear statusDescription } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RecipeW2($uploaderIds: [String!]) {\n    getFw2Statements(uploaderIds: $uploaderIds) {\n      errors\n      statements { nodes { otxId uploaderId recipientFirstName } }\n    }\n  }\n"): (typeof documents)["\n  query RecipeW2($uploaderIds: [String!]) {\n    getFw2Statements(uploaderIds: $uploaderIds) {\n      errors\n      statements { nodes { otxId uploaderId recipientFirstName } }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;