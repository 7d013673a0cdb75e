/** Every document the page sends. Codegen types them and lists them in the persisted-documents manifest. */
import { graphql } from './gql';

/** Asking `session` is activity: "Stay signed in". */
export const SessionQuery = graphql(`
  query Session {
    session { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }
  }
`);

/** The time left without keeping an idle session alive: after every request, and at zero. */
export const SessionLeftQuery = graphql(`
  query SessionLeft {
    session(touch: false) { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }
  }
`);

export const LoginMutation = graphql(`
  mutation Login($email: String!, $password: String!, $environment: Environment) {
    login(email: $email, password: $password, environment: $environment) { uid environment expiresAt idleExpiresAt idleExpiresInSeconds }
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
