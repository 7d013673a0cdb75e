/**
 * Every route the gateway serves, both products' and the operators', as a template: what the
 * SERVER span is named by and sets as `http.route` (src/tracing/server-span.ts). A template holds
 * no part a client chose (`/statements/{otxId}/pdf`, never the id), so spans carry no id and the
 * routes stay few whatever clients send. Here, in composition, because only here are all the
 * products known; each entry names the plugin that serves it, and test/gateway/route-templates.test.ts
 * checks that each one is served.
 */
import { FRONT_PATHS } from '../drop-in/front-paths';
import { otxIdOfPath } from '../http/pdf-download';
import { GRAPHIQL_ASSETS } from '../ops/graphiql/use-graphiql-page';

/** Routes whose template is their path. */
const PLAIN: readonly string[] = [
  // The gateway's GraphQL (http/use-routes.ts; GraphiQL's page for a browser, ops/graphiql/), and
  // the redirect of its trailing-slash form.
  '/graphql',
  '/graphql/',
  // The drop-in front (drop-in/front-paths.ts), with and without an environment prefix.
  ...FRONT_PATHS,
  // Liveness and readiness (ops/use-health.ts), metrics (ops/use-metrics.ts), the ops page and its
  // data (ops/use-ops-page.ts).
  '/healthcheck',
  '/readiness',
  '/metrics',
  '/ops',
  '/ops/',
  '/ops/data',
];

/** Routes with a part of the path as a parameter, tried in order after the plain ones. */
const PARAMETERISED: readonly { readonly template: string; matches(path: string): boolean }[] = [
  // A statement's PDF (http/use-pdf-downloads.ts), by the route's own matcher.
  { template: '/statements/{otxId}/pdf', matches: (path) => otxIdOfPath(path) !== undefined },
  // The ops page's scripts and stylesheet (ops/use-ops-page.ts).
  { template: '/ops/{file}', matches: (path) => /^\/ops\/[^/]+$/.test(path) },
  // GraphiQL's files, `/graphiql/<version>/<file>` (ops/graphiql/use-graphiql-page.ts).
  { template: `${GRAPHIQL_ASSETS}{version}/{file}`, matches: (path) => path.startsWith(GRAPHIQL_ASSETS) && /^[^/]+\/[^/]+$/.test(path.slice(GRAPHIQL_ASSETS.length)) },
];

/** Every template, for the tests and the docs. */
export const ROUTE_TEMPLATES: readonly string[] = [...PLAIN, ...PARAMETERISED.map((route) => route.template)];

const plain = new Set(PLAIN);

/** The first segment of every template (`/statements` of `/statements/{otxId}/pdf`). */
export const ROUTE_FIRST_SEGMENTS: ReadonlySet<string> = new Set(ROUTE_TEMPLATES.map((template) => `/${template.split('/')[1] ?? ''}`));

/** The template of the route a path (one the edge accepted) belongs to, or undefined when it matches none. */
export function routeTemplateOf(path: string): string | undefined {
  if (plain.has(path)) return path;
  return PARAMETERISED.find((route) => route.matches(path))?.template;
}
