/**
 * Where the drop-in front answers and which upstream environment a request names. The upstream's
 * own clients pick the environment by host, so they cannot send `X-Upstream-Environment`: besides
 * the plain `/v2/...` paths (sandbox, or the header's environment) the front answers under
 * `/sandbox/v2/...` and `/production/v2/...`, and such a client sets its base URL to
 * `https://<gateway>/production`.
 *
 * A prefix and a header that name different environments are refused (400), not resolved: a
 * client that says both means one of them by mistake, and guessing wrong would file in production
 * what was meant as a sandbox test (or the reverse).
 *
 * A request's route and environment come from one reading of one path (frontRequestOf): the path
 * the edge checked (src/request/request-target.ts), so a path whose route and prefix two readers
 * could read differently (`/x/../production/v2/graphql`) never gets this far.
 */
import { environmentNamed, ENVIRONMENTS, type Environment } from '../environment';
import { pathnameOf } from '../request/url-path';

export type FrontEndpoint = 'signIn' | 'signOut' | 'graphql';

/** The upstream's own paths, as the upstream serves them (no prefix). */
export const UPSTREAM_PATHS: Readonly<Record<FrontEndpoint, string>> = {
  signIn: '/v2/auth/sign_in',
  signOut: '/v2/auth/sign_out',
  graphql: '/v2/graphql',
};

const ENDPOINT_METHODS: Readonly<Record<FrontEndpoint, 'POST' | 'DELETE'>> = { signIn: 'POST', signOut: 'DELETE', graphql: 'POST' };

export interface FrontRoute {
  readonly endpoint: FrontEndpoint;
  /** The path the upstream serves the endpoint on. */
  readonly upstreamPath: string;
  readonly method: 'POST' | 'DELETE';
  /** The environment the path's prefix names; undefined for the plain `/v2/...` paths. */
  readonly prefix?: Environment;
}

const ROUTES = new Map<string, FrontRoute>();
for (const [endpoint, upstreamPath] of Object.entries(UPSTREAM_PATHS) as [FrontEndpoint, string][]) {
  const route = { endpoint, upstreamPath, method: ENDPOINT_METHODS[endpoint] };
  ROUTES.set(upstreamPath, route);
  for (const prefix of ENVIRONMENTS) ROUTES.set(`/${prefix}${upstreamPath}`, { ...route, prefix });
}

/** Every path the front answers, each a route of its own (the SERVER span's, src/gateway/route-templates.ts). */
export const FRONT_PATHS: readonly string[] = [...ROUTES.keys()];

/** Every path the front's GraphQL is served on: `/v2/graphql`, `/sandbox/v2/graphql`, `/production/v2/graphql`. */
export const FRONT_GRAPHQL_PATHS: readonly string[] = [...ROUTES.entries()].filter(([, route]) => route.endpoint === 'graphql').map(([path]) => path);

/**
 * Whether a path is the front's: the edge's one question (src/gateway/server.ts), which sends the request
 * to the front's own pipeline. Nothing past the edge asks it.
 */
export function isFrontPath(pathname: string): boolean {
  return ROUTES.has(pathname);
}

export interface FrontRequest {
  readonly route: FrontRoute;
  /** Where the request acts: its path's prefix, else X-Upstream-Environment; `conflict` when they disagree. */
  readonly environment: Environment | 'conflict';
}

/** A front request's route and environment, both from its one path; undefined for any other path. */
export function frontRequestOf(request: Request): FrontRequest | undefined {
  const route = ROUTES.get(pathnameOf(request.url));
  return route && { route, environment: frontEnvironment(route, request.headers.get('x-upstream-environment')) };
}

/**
 * The environment a front request acts in: the path's prefix, else `X-Upstream-Environment`
 * (production only when it says so). A header that contradicts the prefix gives `conflict`.
 */
function frontEnvironment(route: FrontRoute, header: string | null): Environment | 'conflict' {
  if (route.prefix === undefined) return environmentNamed(header);
  const named = header?.trim().toLowerCase();
  return !named || named === route.prefix ? route.prefix : 'conflict';
}
