/**
 * The hot path: a `POST /graphql` naming a hot document by its trusted id, or sending a hot query
 * text (fast-path/hot-documents.ts: an upstream-only query the Yoga pipeline has already validated
 * and run once in that form) is answered on Node's
 * `http` objects, without Yoga's and envelop's per-request machinery, by the same steps the
 * pipeline takes, each the one function both callers use:
 *
 *   the body's shape and the document's variables (graphql-js's coercion, as useFastPath)
 *   -> the CSRF/origin check (csrfStep, as useCsrf)
 *   -> the identity (identifyRequest, as useIdentity)
 *   -> RATE_LIMIT_SESSION (hitSessionLimit, as useRateLimits), while a statement read's lookup in
 *      the read cache runs (cache/read-cache.ts, as useReadCache's lookahead; used only once the
 *      limit passed): a hit is answered with the stored bytes and `Age`
 *   -> one upstream call (the forwarder, as useFastPath), a clean read stored after the answer; or,
 *      for a text that selects only `statementDefinitions`, a hit of the definitions answers
 *      (cache/definitions-answers.ts, as useDefinitionsAnswers)
 *   -> the answer (the upstream's bytes, the CORS and cookie headers, as Yoga writes them), one
 *      access-log line and the standard GraphQL metrics (served-metrics.ts).
 *
 * Only a clean answer is written here. Anything else (a body of another shape, a refused check,
 * an anonymous caller, an answer with errors) goes to the Yoga pipeline, which answers it as it
 * answers any request: before the first step that acts, as the raw request; after it, as the same
 * Request object with the steps already taken (the identity, the limit's hit, the upstream call)
 * handed over in request slots, so nothing is counted, touched or sent upstream twice, and the
 * error mapping, audit trail and metrics of errors stay the pipeline's alone.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AsyncResource } from 'node:async_hooks';
import { getDocumentString } from '@envelop/core';
import { getVariableValues, print, type GraphQLSchema } from 'graphql';
import type { CORSOptions } from 'graphql-yoga';
import { getCORSHeadersByRequestAndOptions, normalizeNodeRequest, sendNodeResponse, type FetchAPI, type ServerAdapterInitialContext } from '@whatwg-node/server';
import { ageOf, cleanResult, readKey, type ReadCache } from '../cache/read-cache';
import type { DefinitionsAnswers } from '../cache/definitions-answers';
import type { RateLimit } from '../config';
import { normalized } from '../documents/document-id';
import { DEFAULT_MESSAGES, errorAnswer } from '../errors';
import { MAX_HOT_BODY, type HotDocument, type HotDocuments } from '../fast-path/hot-documents';
import type { ForwardedAnswers, Forwarder } from '../fast-path/forward';
import { countsAsActivity } from '../identity/activity';
import { identifyRequest, type DecidedIdentities } from '../identity/identify';
import type { IdentityStrategy } from '../identity/strategy';
import type { LogEvents } from '../observability/log-events';
import type { ServedMetrics } from '../observability/served-metrics';
import { hitSessionLimit, type DecidedLimits } from '../protection/use-rate-limits';
import type { RateLimitStore } from '../protection/rate-limiter';
import { jsonAnswer, jsonMediaTypeFor } from '../request/raw-json-answers';
import type { ExecutedOperation } from '../request/executed';
import type { RequestSlot } from '../request/slot';
import type { SessionCookies } from '../session/cookie';
import type { SetCookies } from '../session/cookie-jar';
import { csrfStep } from '../session/use-csrf';
import { countedBody } from './body-limit';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const BODY_KEYS = new Set(['documentId', 'query', 'variables', 'operationName']);

export interface HotPathOptions {
  readonly hot: HotDocuments;
  /** The gateway's schema, for the variables' coercion. */
  readonly schema: GraphQLSchema;
  /** The gateway pipeline's identity strategies, in its order. */
  readonly strategies: readonly IdentityStrategy[];
  readonly csrf: { readonly allowedOrigins: readonly string[]; readonly trustProxy: number; readonly cookieSecure: boolean };
  readonly limit: RateLimit;
  readonly counters: RateLimitStore;
  /** The gateway pipeline's read cache (the same object its useReadCache is given). */
  readonly reads: ReadCache;
  /** The gateway pipeline's definitions answers (the same object its useDefinitionsAnswers is given). */
  readonly definitionsAnswers: DefinitionsAnswers;
  readonly forwarder: Forwarder;
  readonly log: LogEvents;
  readonly metrics: ServedMetrics;
  readonly clock: () => number;
  /** Yoga's `cors` option (http/cors.ts). */
  readonly cors: (request: Request) => CORSOptions;
  /** The request slots both callers read (gateway/request-state.ts). */
  readonly state: {
    readonly operations: RequestSlot<ExecutedOperation>;
    readonly uid: RequestSlot<string>;
    readonly startedAt: RequestSlot<number>;
    readonly setCookies: SetCookies;
    readonly sessionCookies: SessionCookies;
    readonly decidedIdentities: DecidedIdentities;
    readonly decidedLimits: DecidedLimits;
    readonly forwardedAnswers: ForwardedAnswers;
  };
  /** The Yoga pipeline: its fetch API, and its handler for a Request the hot path began. */
  readonly yoga: {
    readonly fetchAPI: FetchAPI;
    handleRequest(request: Request, serverContext: Partial<ServerAdapterInitialContext> & { req: IncomingMessage; res: ServerResponse }): Response | Promise<Response>;
  };
}

/** What the request's body asks for, when it has the one shape this path answers. */
interface HotCall {
  readonly entry: HotDocument;
  /** What the read cache's key hashes as the document (as the pipeline's response cache reads it). */
  readonly documentString: string;
  /** The query text, when the request sent one. */
  readonly query?: string;
  readonly variables: Readonly<Record<string, unknown>> | undefined;
  readonly coerced: Readonly<Record<string, unknown>>;
  readonly operationName: string | undefined;
}

/** Whether the headers alone allow this path: Yoga's own POST shape, a caller that names itself. */
function eligible(req: IncomingMessage): boolean {
  const { headers } = req;
  if (req.method !== 'POST' || req.url !== '/graphql') return false;
  const length = Number(headers['content-length']);
  if (!(length > 0 && length <= MAX_HOT_BODY)) return false;
  const type = headers['content-type'];
  if (type !== 'application/json' && !type?.startsWith('application/json;')) return false;
  // An Idempotency-Key names a mutation's run; these are queries: the pipeline says what it means.
  if (headers['idempotency-key'] !== undefined) return false;
  return headers.cookie !== undefined || headers.authorization !== undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hotPath(options: HotPathOptions, next: Listener): Listener {
  const { hot, schema, strategies, csrf, limit, counters, reads, definitionsAnswers, forwarder, log, metrics, clock, cors, state, yoga } = options;
  if (!hot.possible) return next;
  const csrfOptions = { ...csrf, sessionCookies: state.sessionCookies };

  /** The body's call, or undefined when the pipeline must read it (any other shape, refused variables). */
  const callOf = (body: Buffer): HotCall | undefined => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isRecord(parsed) || Object.keys(parsed).some((key) => !BODY_KEYS.has(key))) return undefined;
    const { documentId, query, variables, operationName } = parsed;
    // A document id, or the text of a hot document (never both).
    if (typeof documentId === typeof query || (documentId !== undefined && typeof documentId !== 'string') || (query !== undefined && typeof query !== 'string')) return undefined;
    if (variables !== undefined && variables !== null && !isRecord(variables)) return undefined;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
    const entry = typeof documentId === 'string' ? hot.get(normalized(documentId)) : typeof query === 'string' ? hot.byText(query) : undefined;
    if (!entry || (typeof operationName === 'string' && operationName !== entry.operationName)) return undefined;
    const given = variables ?? undefined;
    let coerced: Readonly<Record<string, unknown>> = {};
    const definitions = entry.executed.operation.variableDefinitions ?? [];
    if (definitions.length > 0) {
      const values = getVariableValues(schema, definitions, given ?? {}, { maxErrors: 50 });
      if (values.errors) return undefined;
      coerced = values.coerced;
    }
    // The pipeline parses a text (envelop registers the text as its string); a trusted document is
    // the one parsed at start, whose string is what the pipeline registered when it ran it.
    const documentString = typeof query === 'string' ? query : getDocumentString(entry.document, print);
    return { entry, documentString, ...(typeof query === 'string' ? { query } : {}), variables: given, coerced, operationName: operationName ?? undefined };
  };

  /** The clean answer, as Yoga writes it (raw-json-answers.ts, the CORS plugin, useSessionCookies). */
  const answer = (request: Request, req: IncomingMessage, res: ServerResponse, bytes: string, mediaType: string, age?: string) => {
    const response = jsonAnswer(yoga.fetchAPI, bytes, mediaType);
    if (age !== undefined) response.headers.set('age', age);
    const corsHeaders = getCORSHeadersByRequestAndOptions(request, cors(request));
    if (corsHeaders) for (const name in corsHeaders) response.headers.set(name, corsHeaders[name] as string);
    for (const value of state.setCookies.get(request) ?? []) response.headers.append('set-cookie', value);
    response.headers.set('cache-control', 'no-store');
    return sendNodeResponse(response, res, req, true);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, chunks: Buffer[], startedAt: number): Promise<void> => {
    const body = Buffer.concat(chunks);
    // As body-limit.ts hands a counted body to whatwg-node: the pipeline reads it from there.
    (req as IncomingMessage & { body?: Blob }).body = countedBody(chunks);
    const mediaType = jsonMediaTypeFor(req.headers.accept);
    const call = mediaType && callOf(body);
    if (!call || !mediaType) return next(req, res);
    const { entry } = call;
    const request = normalizeNodeRequest(req, yoga.fetchAPI, res);
    // From here on the pipeline gets this same Request: whatever this path decided goes with it.
    const handOver = async () => {
      const response = await yoga.handleRequest(request, { req, res });
      await sendNodeResponse(response, res, req, true);
    };
    state.operations.set(request, entry.executed);
    state.setCookies.set(request, []);
    // The access line of a request handed over counts from here, not from Yoga's first hook.
    state.startedAt.set(request, startedAt);
    const verdict = csrfStep(request, entry.executed, csrfOptions);
    if (verdict && !verdict.ok) return handOver();
    const identified = identifyRequest(strategies, request, countsAsActivity(entry.executed.fields, call.variables));
    state.decidedIdentities.set(request, identified);
    // A strategy that throws (none does today: they answer refusals) is the pipeline's to answer.
    const found = await identified.catch(() => undefined);
    if (!found || !('identity' in found)) return handOver();
    const { identity } = found;
    state.uid.set(request, identity.uid);
    // A statement read's lookup overlaps the limit's round trip; it is read only once the limit passed.
    const scope = reads.scopeOf(identity, identity.upstream, entry.executed, entry.document);
    const cacheKey = scope && readKey(scope.scope, call.documentString, call.variables, call.operationName);
    const lookup = cacheKey === undefined ? undefined : reads.lookAhead(request, cacheKey);
    const key = identity.rateLimitKey;
    if (key !== undefined) {
      const hit = hitSessionLimit(counters, limit, key, entry.executed.fields.length);
      state.decidedLimits.set(request, hit);
      if (!(await hit).allowed) return handOver();
    }
    const executeStarted = clock();
    const { plan } = entry;
    const read = lookup && (await lookup);
    const stored = read && reads.storedIn(read, req.headers['cache-control']);
    let bytes = stored?.bytes;
    if (plan === 'definitions') {
      // Only a hit is answered here: a miss is executed, and its answer kept, by the pipeline.
      const definitions = call.query !== undefined && definitionsAnswers.serves(identity, entry.executed) ? definitionsAnswers.hit(identity.upstream, { query: call.query, variables: call.variables, operationName: call.operationName }, entry.executed) : undefined;
      if (!definitions) return handOver();
      bytes = definitions.json;
    } else if (bytes === undefined) {
      const forwarded = forwarder.forward(plan, { request, identity, upstream: identity.upstream, variables: call.variables, coerced: call.coerced, operationName: call.operationName });
      state.forwardedAnswers.set(request, forwarded);
      const { result, bytes: upstreamBytes } = await forwarded;
      if (upstreamBytes === undefined) return handOver();
      bytes = upstreamBytes;
      // Stored after the answer, under the generation the lookup saw (read-cache.ts).
      if (read && cacheKey !== undefined && cleanResult(result)) reads.write(cacheKey, read.generation, result, reads.ttlFor(identity, reads.ttlMs));
    }
    const executeMs = clock() - executeStarted;
    await answer(request, req, res, bytes, mediaType, stored && ageOf(stored.storedAt, reads.now()));
    if (scope) reads.counted(scope, stored !== undefined);
    const durationMs = clock() - startedAt;
    log.requestCompleted({ method: 'POST', path: '/graphql', status: 200, durationMs, operation: entry.executed.names, uid: identity.uid });
    metrics.served(entry.executed.operation.operation, 200, durationMs / 1000, executeMs / 1000);
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
