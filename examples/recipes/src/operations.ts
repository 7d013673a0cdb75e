/** The documents both recipes send. Codegen types them and lists them in the persisted-documents manifest. */
import { graphql } from './gql';

export const LoginMutation = graphql(`
  mutation RecipeLogin($email: String!, $password: String!) {
    login(email: $email, password: $password) { uid environment idleExpiresInSeconds }
  }
`);

export const LogoutMutation = graphql(`
  mutation RecipeLogout {
    logout
  }
`);

export const StatementsQuery = graphql(`
  query RecipeStatements($first: Int) {
    getStatements(first: $first) {
      errors
      statements { nodes { otxId uploaderId formType taxYear statusDescription } }
    }
  }
`);

/** The same statements as Fw2Statement: a normalised cache keyed on otxId holds one copy of each. */
export const W2Query = graphql(`
  query RecipeW2($uploaderIds: [String!]) {
    getFw2Statements(uploaderIds: $uploaderIds) {
      errors
      statements { nodes { otxId uploaderId recipientFirstName } }
    }
  }
`);
