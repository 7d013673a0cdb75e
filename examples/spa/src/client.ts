/**
 * The page's one way to the gateway: POST /graphql with the session cookie (`credentials:
 * 'include'`, needed when the gateway is on another origin) and the X-CSRF header that the gateway
 * requires from every cookie request and from `login`. A failure becomes a GatewayError carrying
 * the contract's `extensions.code`, so the page acts on the code, never on the message text.
 *
 * Each document is sent by its id (`documentId`, the SHA-256 codegen put in its `__meta__.hash`
 * and in src/gql/persisted-documents.json), which is all a gateway with TRUSTED_DOCUMENTS_ONLY
 * accepts from a browser. A gateway that does not know an id answers PERSISTED_QUERY_NOT_FOUND: the
 * page then sends that document's text, as APQ clients do, and keeps doing so. A gateway with no
 * manifest at all answers PERSISTED_QUERY_NOT_SUPPORTED: the page then sends every text, no id.
 */
import type { TypedDocumentString } from './gql/graphql';

/** '' (same origin: the Vite dev proxy) or the gateway's origin, e.g. http://127.0.0.1:4000. */
const gatewayUrl = import.meta.env.VITE_GATEWAY_URL ?? '';

export class GatewayError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** For RATE_LIMITED: how long to wait before asking again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

interface GraphqlAnswer<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; retryAfterSeconds?: number } }[];
}

/** Ids the gateway did not know: their documents are sent as text. */
const unknownIds = new Set<string>();
/** The gateway has no manifest: every document is sent as text. */
let idsSupported = true;

export interface ReadOptions {
  /** `Cache-Control: no-cache`: the gateway asks the upstream instead of its read cache (and refreshes it). */
  readonly noCache?: boolean;
  /**
   * For a mutation: `Idempotency-Key`, one per user intent, the same for every retry of it. The
   * gateway runs the mutation at most once per key and answers a retry with the first answer.
   */
  readonly idempotencyKey?: string;
}

/** The data, and how old it is when the gateway's read cache answered (its `Age`, in seconds). */
export interface Answer<TResult> {
  readonly data: TResult;
  readonly ageSeconds?: number;
  /** `Idempotent-Replayed: true`: the answer the first request with this Idempotency-Key got. */
  readonly replayed?: boolean;
}

/** One POST; the answer's body, or a GatewayError when there is none. */
async function post<TResult>(body: Record<string, unknown>, options: ReadOptions): Promise<{ response: Response; answer: GraphqlAnswer<TResult> }> {
  let response: Response;
  try {
    response = await fetch(`${gatewayUrl}/graphql`, {
      method: 'POST',
      credentials: 'include',
      headers: {
        'content-type': 'application/json',
        'x-csrf': '1',
        ...(options.noCache ? { 'cache-control': 'no-cache' } : {}),
        ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
      },
      body: JSON.stringify(body),
    });
  } catch {
    // A CORS refusal reaches the page as a network failure: the browser hides the gateway's answer.
    throw new GatewayError('NETWORK_ERROR', `No answer from the gateway at ${gatewayUrl || location.origin}: it is down, or it refused this page's origin ${location.origin} (CORS: is it in ALLOWED_ORIGINS?).`);
  }
  try {
    return { response, answer: (await response.json()) as GraphqlAnswer<TResult> };
  } catch {
    throw new GatewayError('BAD_RESPONSE', `The gateway answered HTTP ${response.status} without a GraphQL body.`);
  }
}

export async function execute<TResult, TVariables>(
  document: TypedDocumentString<TResult, TVariables>,
  ...[variables]: TVariables extends Record<string, never> ? [] : [TVariables]
): Promise<TResult> {
  return (await read(document, variables as TVariables)).data;
}

/** `execute`, with the headers a request may send (cache control, idempotency key) and what the answer's headers say. */
export async function read<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables, options: ReadOptions = {}): Promise<Answer<TResult>> {
  const id: unknown = document.__meta__?.['hash'];
  let sent: Awaited<ReturnType<typeof post<TResult>>> | undefined;
  if (typeof id === 'string' && idsSupported && !unknownIds.has(id)) {
    sent = await post<TResult>({ documentId: `sha256:${id}`, variables }, options);
    const code = sent.answer.errors?.[0]?.extensions?.code;
    if (code === 'PERSISTED_QUERY_NOT_FOUND') unknownIds.add(id);
    if (code === 'PERSISTED_QUERY_NOT_SUPPORTED') idsSupported = false;
    if (code === 'PERSISTED_QUERY_NOT_FOUND' || code === 'PERSISTED_QUERY_NOT_SUPPORTED') sent = undefined;
  }
  const { response, answer } = sent ?? (await post<TResult>({ query: document.toString(), variables }, options));
  const error = answer.errors?.[0];
  if (error) {
    const retryAfter = error.extensions?.retryAfterSeconds ?? (Number(response.headers.get('retry-after')) || undefined);
    throw new GatewayError(error.extensions?.code ?? 'UNKNOWN', error.message, retryAfter);
  }
  if (!answer.data) throw new GatewayError('BAD_RESPONSE', `The gateway answered HTTP ${response.status} without data.`);
  // Readable across origins because the gateway's CORS exposes Age and Idempotent-Replayed.
  const age = response.headers.get('age');
  const replayed = response.headers.get('idempotent-replayed') === 'true';
  return { data: answer.data, ...(age === null ? {} : { ageSeconds: Number(age) }), ...(replayed ? { replayed } : {}) };
}

/**
 * `GET /statements/{otxId}/pdf`: the statement's PDF as a file (`Content-Disposition: attachment`,
 * named `<form>-<uploaderId>.pdf`), or `?inline=1` to open it in the browser. The browser sends
 * the session cookie with the link; a statement this session cannot see is a 404.
 */
export function pdfLink(otxId: string, inline: boolean): string {
  return `${gatewayUrl}/statements/${encodeURIComponent(otxId)}/pdf${inline ? '?inline=1' : ''}`;
}

/** A mutation sent with its intent's `Idempotency-Key`: the answer, and whether it was a replay of the first. */
export async function mutate<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables, idempotencyKey: string): Promise<Answer<TResult>> {
  return read(document, variables, { idempotencyKey });
}
