/**
 * The hot path: a `POST /graphql` naming a hot document (fast-path/hot-documents.ts: a query the
 * Yoga pipeline has validated and run once in that form, whose query limits the document alone
 * decides) by its trusted id or by its text is answered on Node's `http` objects, without Yoga's
 * and envelop's per-request machinery, by the pipeline's own execute steps, walked here in the
 * pipeline's order (src/gateway/execute-steps.ts makes them; hot-step.ts says what a step
 * decides). The body is read apart (hot-body.ts); a clean answer is written as Yoga writes it
 * (raw-json-answers.ts, the CORS plugin, useSessionCookies), with one access-log line and the
 * standard GraphQL metrics (served-metrics.ts).
 *
 * Anything else goes to the pipeline, which answers it as it answers any request: before the first
 * step (a body of another shape, refused variables) as the raw request; after it as the same
 * Request object, for which each step that already ran gives its own result again (an identity
 * asked, a limit counted, an upstream call made: each once per request), so the error mapping,
 * the audit trail and the metrics of errors stay the pipeline's alone.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { AsyncResource } from 'node:async_hooks';
import type { GraphQLSchema } from 'graphql';
import type { CORSOptions } from 'graphql-yoga';
import { getCORSHeadersByRequestAndOptions, normalizeNodeRequest, sendNodeResponse, type FetchAPI, type ServerAdapterInitialContext } from '@whatwg-node/server';
import { DEFAULT_MESSAGES, errorAnswer } from '../errors';
import type { HotDocuments } from '../fast-path/hot-documents';
import { countedBody } from '../http/body-limit';
import type { RequestIdentity } from '../identity/strategy';
import type { LogEvents } from '../observability/log-events';
import type { ServedMetrics } from '../observability/served-metrics';
import { jsonMediaTypeFor } from '../request/raw-json-answers';
import type { RequestSlot } from '../request/slot';
import type { SetCookies } from '../session/cookie-jar';
import { eligible, hotCallOf } from './hot-body';
import { HAND_OVER, type HandOver, type HotAnswer, type HotExecute, type HotRequest, type HotStep } from './hot-step';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface HotPathOptions {
  readonly hot: HotDocuments;
  /** The gateway's schema, for the variables' coercion. */
  readonly schema: GraphQLSchema;
  /** The execute steps the pipeline shares with this path, in the pipeline's order. */
  readonly steps: readonly HotStep[];
  readonly log: LogEvents;
  readonly metrics: ServedMetrics;
  readonly clock: () => number;
  /** Yoga's `cors` option (http/cors.ts). */
  readonly cors: (request: Request) => CORSOptions;
  /** When the access log first saw each request: for a request handed over, when this path did. */
  readonly startedAt: RequestSlot<number>;
  /** Each request's Set-Cookie values (a session's cleared cookie, decided while identifying it). */
  readonly setCookies: SetCookies;
  /** The Yoga pipeline: its fetch API, and its handler for a Request the hot path began. */
  readonly yoga: {
    readonly fetchAPI: FetchAPI;
    handleRequest(request: Request, serverContext: Partial<ServerAdapterInitialContext> & { req: IncomingMessage; res: ServerResponse }): Response | Promise<Response>;
  };
}

/** The steps in order, then the execution they set: the clean answer, or the pipeline's turn. */
async function walk(steps: readonly HotStep[], request: HotRequest): Promise<{ readonly answer: HotAnswer; readonly identity: RequestIdentity | undefined } | HandOver> {
  let identity: RequestIdentity | undefined;
  let execute: HotExecute | undefined;
  for (const step of steps) {
    const pending = step(request, { identity, execute });
    const outcome = pending instanceof Promise ? await pending : pending;
    if (outcome === undefined) continue;
    if (outcome === HAND_OVER) return HAND_OVER;
    if ('identity' in outcome) identity = outcome.identity;
    else if ('execute' in outcome) execute = outcome.execute;
    else return { answer: outcome.answer, identity };
  }
  const answer = execute ? await execute() : HAND_OVER;
  return answer === HAND_OVER ? HAND_OVER : { answer, identity };
}

export function hotPath(options: HotPathOptions, next: Listener): Listener {
  const { hot, schema, steps, log, metrics, clock, cors, startedAt: started, setCookies, yoga } = options;
  if (!hot.possible) return next;

  /**
   * The clean answer, as Yoga writes it (raw-json-answers.ts, the CORS plugin, useSessionCookies),
   * straight on Node's response: a whatwg Response and its Headers made and copied for each answer
   * cost more than the rest of the write (issue 44). test/http/hot-path.test.ts checks both paths
   * answer the same headers.
   */
  const write = (request: Request, res: ServerResponse, answer: HotAnswer, mediaType: string) => {
    if (res.closed || res.destroyed || res.writableEnded) return;
    const headers: OutgoingHttpHeaders = { 'content-type': `${mediaType}; charset=utf-8`, 'content-length': Buffer.byteLength(answer.bytes) };
    if (answer.age !== undefined) headers.age = answer.age;
    const corsHeaders = getCORSHeadersByRequestAndOptions(request, cors(request));
    if (corsHeaders) for (const name in corsHeaders) headers[name] = corsHeaders[name];
    const cookies = setCookies.get(request);
    if (cookies !== undefined && cookies.length > 0) headers['set-cookie'] = cookies;
    headers['cache-control'] = 'no-store';
    res.writeHead(200, headers).end(answer.bytes);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, chunks: Buffer[], startedAt: number): Promise<void> => {
    const body = Buffer.concat(chunks);
    // As body-limit.ts hands a counted body to whatwg-node: the pipeline reads it from there.
    (req as IncomingMessage & { body?: Blob }).body = countedBody(chunks);
    const mediaType = jsonMediaTypeFor(req.headers.accept);
    const call = mediaType && hotCallOf(hot, schema, body);
    if (!call || !mediaType) return next(req, res);
    const request = normalizeNodeRequest(req, yoga.fetchAPI, res);
    setCookies.set(request, []);
    // The access line of a request handed over counts from here, not from Yoga's first hook.
    started.set(request, startedAt);
    const executeStarted = clock();
    const walked = await walk(steps, { ...call, request });
    if (walked === HAND_OVER) {
      // The same Request: each step that already ran gives the pipeline its result for it.
      const response = await yoga.handleRequest(request, { req, res });
      await sendNodeResponse(response, res, req, true);
      return;
    }
    const { answer, identity } = walked;
    const executeMs = clock() - executeStarted;
    write(request, res, answer, mediaType);
    answer.after?.();
    const durationMs = clock() - startedAt;
    const { executed } = call.entry;
    log.requestCompleted({ method: 'POST', path: '/graphql', status: 200, durationMs, operation: executed.names, ...(identity ? { uid: identity.uid } : {}) });
    metrics.served(executed.operation.operation, 200, durationMs / 1000, executeMs / 1000);
  };

  return (req, res) => {
    if (!eligible(req)) return next(req, res);
    const startedAt = clock();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('error', () => res.destroy());
    // The request's context (its id for the logs) goes on with the body's end.
    req.once('end', AsyncResource.bind(() => {
      handle(req, res, chunks, startedAt).catch((error: unknown) => {
        log.unexpectedError({ error, operation: 'hot-path' });
        if (res.writableEnded) return;
        if (res.headersSent) return res.destroy();
        const { status, headers, body } = errorAnswer(500, 'INTERNAL_SERVER_ERROR', DEFAULT_MESSAGES.INTERNAL_SERVER_ERROR);
        res.writeHead(status, headers).end(body);
      });
    }));
  };
}
