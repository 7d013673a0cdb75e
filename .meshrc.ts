import type { YamlConfig } from '@graphql-mesh/types';

/**
 * The composition root, as static data only: `mesh build` serialises this object to JSON, so a
 * function here would be dropped silently and `process.env` would be frozen at build time. Every
 * per-request value is interpolated from the GraphQL context, which the gateway's plugins fill in;
 * src/gateway/server.ts hands those plugins to Mesh with the options it loads from the build.
 */
const config: YamlConfig.Config = {
  sources: [
    {
      // The upstream GraphQL API. The schema comes from the committed SDL, so the build needs no
      // live upstream; the endpoint is chosen per request from the caller's environment
      // (sandbox or production), one schema for both.
      name: 'StatementFilingService',
      handler: {
        graphql: {
          source: './sources/statement-filing-service/schema.graphql',
          endpoint: '{context.upstream.graphqlUrl}',
          // The HTTP executor merges identical in-flight queries, keyed by URL, body and these
          // headers; the credential is only added later, by the broker. This header makes the key
          // per identity, so two users' identical reads are never merged. The broker strips it.
          operationHeaders: { 'x-sgw-identity': '{context.identityKey}' },
        },
      },
    },
    {
      // The REST sign-in and sign-out. One returns a credential and the other takes one, so neither
      // reaches the public schema: the gateway runs them on this source's own schema
      // (src/gateway/mesh-auth.ts), for `login`, `logout` and the service accounts alike.
      name: 'SignIn',
      handler: {
        jsonSchema: {
          endpoint: '{context.upstream.baseUrl}',
          // The handler sends a JSON body without saying so; Rails only parses it with this.
          operationHeaders: { 'Content-Type': 'application/json', Accept: 'application/json' },
          operations: [
            {
              type: 'Mutation',
              field: 'signIn',
              path: '/v2/auth/sign_in',
              method: 'POST',
              requestSchema: './sources/sign-in/request.json',
              responseByStatusCode: {
                // `exposeResponseMetadata` adds `_response { status headers }` to each answer
                // type: the credential travels in the headers.
                200: { responseSchema: './sources/sign-in/response.json', exposeResponseMetadata: true },
                401: { responseSchema: './sources/sign-in/error.json', exposeResponseMetadata: true },
              },
            },
            {
              type: 'Mutation',
              field: 'signOut',
              path: '/v2/auth/sign_out',
              method: 'DELETE',
              // The credential to end, per call: these become the field's arguments.
              headers: { 'access-token': '{args.accessToken}', client: '{args.client}', uid: '{args.uid}' },
              responseByStatusCode: {
                200: { responseSchema: './sources/sign-in/sign-out.json', exposeResponseMetadata: true },
                // Unknown to the upstream (already signed out, expired): as good as signed out.
                404: { responseSchema: './sources/sign-in/sign-out-error.json', exposeResponseMetadata: true },
              },
            },
          ],
        },
      },
    },
  ],
  transforms: [
    // The sign-in and sign-out handle credentials: off the public schema, though the in-context
    // SDK still reaches them (a source-level filter would remove them from the SDK too). `dummy`
    // is the placeholder Mesh adds to a source without queries.
    { filterSchema: { mode: 'bare', filters: ['Query.!dummy', 'Mutation.!{signIn,signOut}'] } },
    // Drops the types only the hidden operations used, so introspection shows none of them.
    { prune: { skipPruning: ['Environment', 'Session'] } },
  ],
  additionalTypeDefs: /* GraphQL */ `
    "Which upstream environment a session acts in."
    enum Environment {
      SANDBOX
      PRODUCTION
    }

    "A browser session held by the gateway. The upstream credential never leaves the server."
    type Session {
      "The upstream user id (the sign-in e-mail)."
      uid: String!
      environment: Environment!
      "When the session ends at the latest (ISO-8601); inactivity can end it earlier."
      expiresAt: String!
      "When the session ends if no request arrives before (ISO-8601). Every request with the session cookie moves it on, asking \`session\` included unless \`touch: false\`."
      idleExpiresAt: String!
      "Seconds left before the idle timeout, from the gateway's clock: count down from this, not from \`idleExpiresAt\`, so that the browser's clock does not matter."
      idleExpiresInSeconds: Int!
    }

    "One of the signed-in user's browser sessions in this environment (\`sessions\`)."
    type SessionInfo {
      "An opaque handle for \`endSession\`: not the cookie, and it opens nothing."
      id: ID!
      "When the session logged in (ISO-8601)."
      createdAt: String!
      "When a request last used it (ISO-8601)."
      lastSeenAt: String!
      "The \`User-Agent\` sent at login, cut to 200 characters; null when none was sent (or the session predates the list)."
      userAgent: String
      "Whether it is the session asking."
      current: Boolean!
    }

    extend type Query {
      "The current session, or null. Asking counts as activity (moves the idle timeout on) unless \`touch\` is false: a page showing the time left asks with \`touch: false\`."
      session(touch: Boolean = true): Session
      "The signed-in user's live browser sessions in this environment, most recently used first. Needs a browser session."
      sessions: [SessionInfo!]!
    }

    extend type Mutation {
      "Signs in upstream, keeps the credential server-side and sets the session cookie."
      login(email: String!, password: String!, environment: Environment = SANDBOX): Session!
      "Ends the session server-side, signs out upstream and clears the cookie."
      logout: Boolean!
      "Ends one of the user's sessions (an \`id\` from \`sessions\`), signed out upstream and refused on every replica within SESSION_CACHE_TTL + 1 s; false when the id is not one of the user's live sessions. Must be the only root field of its operation."
      endSession(id: ID!): Boolean!
      "Ends all of the user's sessions (all but this one with \`keepCurrent\`), each signed out upstream; how many it ended. Must be the only root field of its operation."
      logoutEverywhere(keepCurrent: Boolean = false): Int!
    }
  `,
  additionalResolvers: ['./additional-resolvers/index.ts'],
  serve: {
    // GraphiQL is served by the gateway's own server in development (src/gateway/server), with X-CSRF.
    playground: false,
  },
};

export default config;
