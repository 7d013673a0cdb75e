/**
 * GraphQL requests the gateway sends through its own whole pipeline on a client's behalf (the PDF
 * download route), told apart by the Request object itself, never by a header a client could send
 * too. One per gateway (two gateways in a process share nothing); connected to the gateway's own
 * request handler once the server exists, since the plugins are built before it.
 */

/** The server's handler with every plugin's request hooks (Yoga's `handleRequest`). */
export type InternalHandler = (request: Request, serverContext: Record<string, unknown>) => Response | Promise<Response>;

export interface InternalRequests {
  /** Called once by the server when it exists. */
  connect(handler: InternalHandler): void;
  /** Sends a request this gateway built through its own pipeline, marked as internal. */
  send(request: Request, serverContext: Record<string, unknown>): Promise<Response>;
  /** Whether this gateway built the request. */
  has(request: Request): boolean;
}

export function createInternalRequests(): InternalRequests {
  const built = new WeakSet<Request>();
  let handler: InternalHandler | undefined;
  return {
    connect(next) {
      handler = next;
    },
    async send(request, serverContext) {
      if (!handler) throw new Error('internal requests are not connected to the server');
      built.add(request);
      return handler(request, serverContext);
    },
    has: (request) => built.has(request),
  };
}
