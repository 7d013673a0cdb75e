/**
 * An operator endpoint (`/healthcheck`, `/readiness`, `/metrics`, `/ops/...`) is a plain function
 * from a request to its answer, so that two callers serve the same code: the gateway's Yoga
 * pipeline, as a plugin, while they share the traffic port (useOpsEndpoint), and the ops listener
 * on OPS_PORT, without Yoga (serveOpsEndpoints, src/gateway/ops-listener.ts).
 */
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from '../errors';

/**
 * The answer to a request on one of the endpoint's paths, or undefined for any other path and for
 * a client it hides from (who then gets the 404 of an unknown path). A promise only for a request
 * it answers: the other requests pass through without one. `serverContext` is the Node server's
 * (`{ req }`: the socket's address for the loopback rule, ops/access.ts); `url`, when the caller
 * has parsed it already.
 */
export type OpsEndpoint = (request: Request, serverContext: unknown, url?: URL) => Response | Promise<Response> | undefined;

/** The endpoint in the Yoga pipeline: it answers before any GraphQL work, or lets the request go on. */
export function useOpsEndpoint(endpoint: OpsEndpoint): Plugin {
  return {
    onRequest(payload) {
      const answer = endpoint(payload.request, payload.serverContext, payload.url);
      if (answer === undefined) return;
      if (answer instanceof Promise) return answer.then((response) => payload.endResponse(response));
      payload.endResponse(answer);
    },
  };
}

/** The ops listener's handler: the first endpoint that answers, else 404, as for an unknown path. */
export function serveOpsEndpoints(endpoints: readonly OpsEndpoint[]): (request: Request, serverContext: unknown) => Promise<Response> {
  return async (request, serverContext) => {
    const url = new URL(request.url);
    for (const endpoint of endpoints) {
      const answer = endpoint(request, serverContext, url);
      if (answer !== undefined) return answer;
    }
    return errorResponse(404, 'BAD_REQUEST', 'Not found. This port serves /healthcheck, /readiness, /metrics and /ops/.');
  };
}
