/**
 * In-process plugin specs: a Yoga server with the plugins under test over a small schema, called
 * through `yoga.fetch` (no socket, no gateway process, no emulator), so a spec runs in
 * milliseconds. The schema has what the protection plugins look at: a recursive type for depth,
 * statements with a `pdf` field in pages taking `first`, and a mutation naming statements.
 */
import { createSchema, createYoga, type Plugin, type YogaServerOptions } from 'graphql-yoga';

const TYPE_DEFS = /* GraphQL */ `
  type Query {
    hello: String!
    tree: Tree!
    statements(first: Int): StatementPage!
  }
  type Tree {
    name: String!
    child: Tree!
  }
  type Statement {
    otxId: ID!
    pdf: String!
  }
  type StatementPage {
    nodes: [Statement!]!
  }
  type Mutation {
    addStatements(statements: [String!]!): Int!
  }
`;

const tree = { name: 'node', get child() { return tree; } };

export function specSchema() {
  return createSchema({
    typeDefs: TYPE_DEFS,
    resolvers: {
      Query: {
        hello: () => 'world',
        tree: () => tree,
        statements: (_root: unknown, { first }: { first?: number | null }) => ({
          nodes: Array.from({ length: Math.min(first ?? 100, 100) }, (_, i) => ({ otxId: `otx-${i}`, pdf: 'JVBERi0=' })),
        }),
      },
      Mutation: { addStatements: (_root: unknown, { statements }: { statements: string[] }) => statements.length },
    },
  });
}

/** What Node's adapter hands Yoga as the server context: only the socket's address is read. */
export const fromAddress = (remoteAddress: string) => ({ req: { socket: { remoteAddress } } });

export interface GraphqlAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } & Record<string, unknown> }[] };
  readonly codes: (string | undefined)[];
}

export interface SpecServer {
  /** `path` on the server (`/graphql`, `/metrics`, ...), from `serverContext` (default: no socket at all). */
  fetch(path: string, init?: RequestInit, serverContext?: object): Promise<Response>;
  /** POSTs a JSON GraphQL request to /graphql. */
  graphql(query: string, options?: { variables?: Record<string, unknown>; operationName?: string; headers?: Record<string, string>; serverContext?: object }): Promise<GraphqlAnswer>;
}

type Options = Omit<YogaServerOptions<object, object>, 'plugins'>;
/** Yoga takes plugins typed for any context (the gateway's are Plugin<GatewayContext>). */
type AnyPlugin = NonNullable<YogaServerOptions<object, object>['plugins']>[number];

export function yogaWith(plugins: readonly (Plugin | AnyPlugin)[], options: Options = {}): SpecServer {
  const yoga = createYoga<object>({ schema: specSchema(), logging: false, ...options, plugins: [...plugins] });
  const fetch = async (path: string, init: RequestInit = {}, serverContext: object = {}) => yoga.fetch(`http://gateway.test${path}`, init, serverContext);
  return {
    fetch,
    async graphql(query, { variables, operationName, headers = {}, serverContext } = {}) {
      const response = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables, operationName }) }, serverContext);
      const body = (await response.json()) as GraphqlAnswer['body'];
      return { status: response.status, headers: response.headers, body, codes: (body.errors ?? []).map((error) => error.extensions?.code) };
    },
  };
}
