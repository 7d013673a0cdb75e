/**
 * Hive Gateway in proxy mode, the peer of `npm run bench`: what a user would run instead of our
 * gateway, configured as a plain proxy. Started as `hive-gateway proxy -c <this file>` with
 * BENCH_HIVE_UPSTREAM (the emulator's /v2/graphql) and BENCH_HIVE_SCHEMA (the upstream SDL file,
 * so it never introspects). The client's devise credential headers are passed to the upstream
 * (it has no sessions); no response cache, no GraphiQL, no WebSockets, no usage reporting, and
 * schema polling pushed out of the run (it cannot be switched off; 10 s would reload the schema
 * during a measurement).
 *
 * Hive Gateway is installed in bench/node_modules on the bench's first run (bench/install.ts), not
 * in the project's own install, so this file does not import its `defineConfig` (which only types
 * its argument): `HiveProxyConfig` is the part of its configuration type used here.
 */

interface HiveProxyConfig {
  readonly proxy: { readonly endpoint: string };
  readonly schema: string;
  readonly propagateHeaders: { readonly fromClientToSubgraphs: (payload: { readonly request: Request }) => Record<string, string | null> };
  readonly pollingInterval: number;
  readonly graphiql: boolean;
  readonly landingPage: boolean;
  readonly disableWebsockets: boolean;
  readonly logging: 'debug' | 'info' | 'warn' | 'error';
}

const CREDENTIAL_HEADERS = ['access-token', 'client', 'uid'] as const;

export const gatewayConfig: HiveProxyConfig = {
  proxy: { endpoint: process.env.BENCH_HIVE_UPSTREAM ?? 'http://127.0.0.1:1/v2/graphql' },
  schema: process.env.BENCH_HIVE_SCHEMA ?? 'schema.graphql',
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }) => Object.fromEntries(CREDENTIAL_HEADERS.map((name) => [name, request.headers.get(name)])),
  },
  pollingInterval: 3_600_000,
  graphiql: false,
  landingPage: false,
  disableWebsockets: true,
  logging: 'warn',
};
