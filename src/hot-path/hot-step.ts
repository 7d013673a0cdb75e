/**
 * What the hot path's loop (hot-path.ts) asks of each execute step it shares with the Yoga
 * pipeline. src/gateway/execute-steps.ts makes every step once, as a plugin for the pipeline and,
 * where the hot path takes it, as one of these functions over the same plugin (the same per-request
 * result: a step that already ran for a Request gives that result again, never runs twice).
 *
 * A step is told the request's call and what the steps before it decided, and says what it decides,
 * in the words of envelop's onExecute cut to what a clean answer needs: go on; act as an identity
 * (extendContext); execute this way (setExecuteFn, which may wrap the execution so far); answer now
 * (setResultAndStopExecution with bytes); or hand the request to the pipeline, which answers it
 * as it answers any request.
 */
import type { ExecutionResult } from 'graphql';
import type { HotDocument } from '../fast-path/hot-documents';
import type { RequestIdentity } from '../identity/strategy';

/** What a request's body asks for, when it has the one shape the hot path answers (hot-body.ts). */
export interface HotCall {
  readonly entry: HotDocument;
  /** What the read cache's key hashes as the document (as the pipeline's response cache reads it). */
  readonly documentString: string;
  /** The query text, when the request sent one. */
  readonly query?: string;
  /** As the client sent them. */
  readonly variables: Readonly<Record<string, unknown>> | undefined;
  /** As graphql-js coerced them for the document's variable definitions. */
  readonly coerced: Readonly<Record<string, unknown>>;
  readonly operationName: string | undefined;
}

/** The call and the Request the pipeline gets if the request is handed over. */
export interface HotRequest extends HotCall {
  readonly request: Request;
}

/** The pipeline answers the request from here. */
export const HAND_OVER = 'hand-over';
export type HandOver = typeof HAND_OVER;

/** A clean answer's bytes, and what goes with them. */
export interface HotAnswer {
  readonly bytes: string;
  /** The result the bytes are the JSON of, when a later step reads it (the read cache stores it). */
  readonly result?: ExecutionResult;
  /** `Age`, for an answer from the read cache. */
  readonly age?: string;
  /** Run once the answer is written (what is counted only for an answer actually given). */
  readonly after?: () => void;
}

export type HotExecute = () => Promise<HotAnswer | HandOver>;

/** What the steps before this one decided. */
export interface HotSoFar {
  readonly identity: RequestIdentity | undefined;
  readonly execute: HotExecute | undefined;
}

export type HotOutcome =
  | undefined
  | HandOver
  | { readonly identity: RequestIdentity }
  | { readonly execute: HotExecute }
  | { readonly answer: HotAnswer };

export type HotStep = (request: HotRequest, soFar: HotSoFar) => HotOutcome | Promise<HotOutcome>;
