/** Every document the page sends. Codegen types them and lists them in the persisted-documents manifest. */
import { graphql } from './gql';

export const SessionQuery = graphql(`
  query Session {
    session { uid environment expiresAt idleExpiresAt }
  }
`);

export const LoginMutation = graphql(`
  mutation Login($email: String!, $password: String!, $environment: Environment) {
    login(email: $email, password: $password, environment: $environment) { uid environment expiresAt idleExpiresAt }
  }
`);

export const LogoutMutation = graphql(`
  mutation Logout {
    logout
  }
`);

export const StatementsQuery = graphql(`
  query Statements($first: Int) {
    getStatements(first: $first) {
      errors
      statements {
        nodes { otxId uploaderId formType taxYear recipientFirstName recipientLastName statusDescription }
      }
    }
  }
`);

export const StatementPdfQuery = graphql(`
  query StatementPdf($otxId: String!) {
    getStatements(otxIds: [$otxId]) {
      errors
      statements { nodes { otxId uploaderId pdf } }
    }
  }
`);
