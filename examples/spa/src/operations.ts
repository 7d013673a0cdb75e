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

/** Files one W-2. Sent with an Idempotency-Key: a retry of the same intent cannot file it twice. */
export const AddW2Mutation = graphql(`
  mutation AddW2($statements: [Fw2Input!]!) {
    addFw2Statements(statements: $statements) {
      errors
      statements { messages statement { otxId uploaderId } }
    }
  }
`);

/** Whether statements with these uploader ids exist: after an unclear answer to AddW2. */
export const StatementsByUploaderQuery = graphql(`
  query StatementsByUploader($uploaderIds: [String!]) {
    getFw2Statements(uploaderIds: $uploaderIds) {
      errors
      statements { nodes { otxId uploaderId } }
    }
  }
`);

/** "Your sessions": every browser signed in as this user, this one first. */
export const SessionsQuery = graphql(`
  query Sessions {
    sessions { id createdAt lastSeenAt userAgent current }
  }
`);

/** Ends one of them (another browser): it is signed out at once, on every replica. */
export const EndSessionMutation = graphql(`
  mutation EndSession($id: ID!) {
    endSession(id: $id)
  }
`);

/** Ends all of them, or all but this one with `keepCurrent`; answers how many it ended. */
export const LogoutEverywhereMutation = graphql(`
  mutation LogoutEverywhere($keepCurrent: Boolean) {
    logoutEverywhere(keepCurrent: $keepCurrent)
  }
`);
