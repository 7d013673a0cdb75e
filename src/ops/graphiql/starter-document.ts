/**
 * What GraphiQL's editor holds when it opens without `?query=`: a sign-in and a first read, ready
 * to run, in place of Yoga's welcome text (which explains GraphiQL, not this gateway). A developer's
 * first minutes are "log in, then list statements"; the X-CSRF header is already in the headers
 * editor, and the session cookie follows the login. The account is the built-in emulator's demo
 * account (the start banner names it), public and useless against a real upstream; GraphiQL is off
 * in production.
 */
export const STARTER_DOCUMENT = `# 1. Run Login (the emulator's demo account;
#    X-CSRF is already set under Headers).
# 2. Run Statements: the session cookie goes along.
mutation Login {
  login(
    email: "demo@example.com"
    password: "demo-password-0123456789"
    environment: SANDBOX
  ) {
    uid
    environment
    idleExpiresInSeconds
  }
}

query Statements {
  session(touch: false) {
    uid
    idleExpiresInSeconds
  }
  getStatements(first: 10) {
    errors
    statements {
      nodes {
        otxId
        uploaderId
        formType
        taxYear
        statusDescription
      }
    }
  }
}
`;
