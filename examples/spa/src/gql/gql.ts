/* eslint-disable */
import * as types from './graphql';



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
    "\n  query Session {\n    session { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }\n  }\n": typeof types.SessionDocument,
    "\n  query SessionLeft {\n    session(touch: false) { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }\n  }\n": typeof types.SessionLeftDocument,
    "\n  mutation Login($email: String!, $password: String!, $environment: Environment) {\n    login(email: $email, password: $password, environment: $environment) { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }\n  }\n": typeof types.LoginDocument,
    "\n  mutation Logout {\n    logout\n  }\n": typeof types.LogoutDocument,
    "\n  query Statements($first: Int) {\n    getStatements(first: $first) {\n      errors\n      statements {\n        nodes { otxId uploaderId formType taxYear recipientFirstName recipientLastName statusDescription }\n      }\n    }\n  }\n": typeof types.StatementsDocument,
    "\n  mutation AddW2($statements: [Fw2Input!]!) {\n    addFw2Statements(statements: $statements) {\n      errors\n      statements { messages statement { otxId uploaderId } }\n    }\n  }\n": typeof types.AddW2Document,
    "\n  query StatementsByUploader($uploaderIds: [String!]) {\n    getFw2Statements(uploaderIds: $uploaderIds) {\n      errors\n      statements { nodes { otxId uploaderId } }\n    }\n  }\n": typeof types.StatementsByUploaderDocument,
    "\n  query Sessions {\n    sessions { id createdAt lastSeenAt userAgent current }\n  }\n": typeof types.SessionsDocument,
    "\n  mutation EndSession($id: ID!) {\n    endSession(id: $id)\n  }\n": typeof types.EndSessionDocument,
    "\n  mutation LogoutEverywhere($keepCurrent: Boolean) {\n    logoutEverywhere(keepCurrent: $keepCurrent)\n  }\n": typeof types.LogoutEverywhereDocument,
};
const documents: Documents = {
    "\n  query Session {\n    session { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }\n  }\n": types.SessionDocument,
    "\n  query SessionLeft {\n    session(touch: false) { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }\n  }\n": types.SessionLeftDocument,
    "\n  mutation Login($email: String!, $password: String!, $environment: Environment) {\n    login(email: $email, password: $password, environment: $environment) { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }\n  }\n": types.LoginDocument,
    "\n  mutation Logout {\n    logout\n  }\n": types.LogoutDocument,
    "\n  query Statements($first: Int) {\n    getStatements(first: $first) {\n      errors\n      statements {\n        nodes { otxId uploaderId formType taxYear recipientFirstName recipientLastName statusDescription }\n      }\n    }\n  }\n": types.StatementsDocument,
    "\n  mutation AddW2($statements: [Fw2Input!]!) {\n    addFw2Statements(statements: $statements) {\n      errors\n      statements { messages statement { otxId uploaderId } }\n    }\n  }\n": types.AddW2Document,
    "\n  query StatementsByUploader($uploaderIds: [String!]) {\n    getFw2Statements(uploaderIds: $uploaderIds) {\n      errors\n      statements { nodes { otxId uploaderId } }\n    }\n  }\n": types.StatementsByUploaderDocument,
    "\n  query Sessions {\n    sessions { id createdAt lastSeenAt userAgent current }\n  }\n": types.SessionsDocument,
    "\n  mutation EndSession($id: ID!) {\n    endSession(id: $id)\n  }\n": types.EndSessionDocument,
    "\n  mutation LogoutEverywhere($keepCurrent: Boolean) {\n    logoutEverywhere(keepCurrent: $keepCurrent)\n  }\n": types.LogoutEverywhereDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Session {\n    session { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }\n  }\n"): typeof import('./graphql').SessionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SessionLeft {\n    session(touch: false) { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }\n  }\n"): typeof import('./graphql').SessionLeftDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Login($email: String!, $password: String!, $environment: Environment) {\n    login(email: $email, password: $password, environment: $environment) { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }\n  }\n"): typeof import('./graphql').LoginDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Logout {\n    logout\n  }\n"): typeof import('./graphql').LogoutDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Statements($first: Int) {\n    getStatements(first: $first) {\n      errors\n      statements {\n        nodes { otxId uploaderId formType taxYear recipientFirstName recipientLastName statusDescription }\n      }\n    }\n  }\n"): typeof import('./graphql').StatementsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AddW2($statements: [Fw2Input!]!) {\n    addFw2Statements(statements: $statements) {\n      errors\n      statements { messages statement { otxId uploaderId } }\n    }\n  }\n"): typeof import('./graphql').AddW2Document;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query StatementsByUploader($uploaderIds: [String!]) {\n    getFw2Statements(uploaderIds: $uploaderIds) {\n      errors\n      statements { nodes { otxId uploaderId } }\n    }\n  }\n"): typeof import('./graphql').StatementsByUploaderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Sessions {\n    sessions { id createdAt lastSeenAt userAgent current }\n  }\n"): typeof import('./graphql').SessionsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation EndSession($id: ID!) {\n    endSession(id: $id)\n  }\n"): typeof import('./graphql').EndSessionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation LogoutEverywhere($keepCurrent: Boolean) {\n    logoutEverywhere(keepCurrent: $keepCurrent)\n  }\n"): typeof import('./graphql').LogoutEverywhereDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
