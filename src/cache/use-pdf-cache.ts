/**
 * The PDF cache, per identity and statement, on the upstream calls themselves (an `onFetch`
 * hook after the credential broker). A read selecting `pdf` goes upstream without it (access is
 * re-checked on every read), the PDFs held are answered from the cache, and the missing ones
 * come from one batched call by `otxIds`, then are stored (unless above the size cap, or a
 * mutation of this identity happened meanwhile: see the store's generations).
 *
 * A PDF is stored after the digest of its statement as this read answered it (pdf-documents.ts),
 * `<digest><pdf>`: both base64 without padding between, so the sealed entry stays as compact as
 * the PDF's bytes (sealed-values.ts). A held PDF whose digest is not the one the upstream's answer
 * has now belongs to another version of the statement: a miss (`cold`: this version was never
 * held), fetched again and stored in its place.
 */
import type { MeshFetch, MeshPlugin } from '@graphql-mesh/types';
import { GatewayError, gatewayError } from '../errors';
import { isIdentityContext, type IdentityContext } from '../identity/use-identity';
import type { GatewayMetrics } from '../observability/metrics';
import { DIGEST_CHARS, fillPdfs, markedStatements, pdfFetchDocument, type PdfRewrite, type PdfRewriter } from './pdf-documents';
import { identityScope } from './scope';
import { cacheKeys, UNKNOWN_GENERATION, type CacheStore, type GroupEntry } from './cache-store';
import type { UpstreamOutcomes } from '../upstream/outcome';

export interface PdfCacheOptions {
  readonly store: CacheStore;
  readonly rewriter: PdfRewriter;
  readonly metrics: GatewayMetrics;
  readonly ttlMs: number;
  /** PDFs larger than this are not kept. */
  readonly maxPdfBytes: number;
  /**
   * PDFs kept per identity (the most recently written; older ones are dropped first): a full
   * page of 100 statements ten times over, so that one identity cannot fill the shared store.
   */
  readonly maxEntries?: number;
  /** Each request's upstream outcome (upstream/outcome.ts). */
  readonly outcomes: UpstreamOutcomes;
}

interface GraphqlBody {
  readonly query?: unknown;
  readonly variables?: unknown;
  readonly operationName?: unknown;
  readonly extensions?: unknown;
}

interface FetchedStatement {
  readonly otxId?: unknown;
  readonly uploaderId?: unknown;
  readonly pdf?: unknown;
}

/** Headers of an answer we re-serialise: its length and encoding no longer apply. */
function answerHeaders(response: Response): Headers {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return headers;
}

type PdfAnswer = { errors?: unknown[]; data?: Record<string, { statements?: { nodes?: FetchedStatement[] | null } | null; errors?: unknown[] } | null> };

/**
 * The batched PDF call's answer. Any error in it fails the read (UPSTREAM_ERROR) rather than
 * quietly answering `pdf: null`; a statement deleted between the two calls is simply absent.
 */
async function pdfAnswer(response: Response): Promise<PdfAnswer> {
  let result: PdfAnswer;
  try {
    result = (await response.json()) as PdfAnswer;
  } catch {
    throw gatewayError('UPSTREAM_ERROR');
  }
  const payloads = Object.values(result.data ?? {});
  if (!response.ok || result.errors?.length || !result.data || payloads.some((payload) => !payload || payload.errors?.length)) {
    throw gatewayError('UPSTREAM_ERROR');
  }
  return result;
}

export function usePdfCache({ store, rewriter, metrics, ttlMs, maxPdfBytes, maxEntries = 1_000, outcomes }: PdfCacheOptions): MeshPlugin<IdentityContext> {
  return {
    onFetch({ context, fetchFn, setFetchFn, options }) {
      if (!isIdentityContext(context) || !context.identity) return;
      const body = options.body;
      // Most calls select no PDF: leave them alone without parsing anything.
      if (typeof body !== 'string' || !body.includes('pdf')) return;
      let request: GraphqlBody;
      try {
        request = JSON.parse(body) as GraphqlBody;
      } catch {
        return;
      }
      if (typeof request.query !== 'string') return;
      const rewrite = rewriter.rewrite(request.query);
      if (!rewrite) return;
      const scope = identityScope(context.upstream.cacheNamespace, context.identity.credential().uid);
      const group = cacheKeys.pdfs(scope);

      const withPdfs: MeshFetch = async (url, init = {}, ...rest) => {
        const response = await fetchFn(url, { ...init, body: JSON.stringify({ ...request, query: rewrite.query }) }, ...rest);
        if (!response.ok) return response;
        const text = await response.text();
        let answer: { data?: unknown };
        try {
          answer = JSON.parse(text) as { data?: unknown };
        } catch {
          // Not JSON: hand it on as it came, the error mapping names it.
          return new Response(text, { status: response.status, headers: answerHeaders(response) });
        }
        let filled: unknown;
        try {
          filled = await fill(answer, rewrite, async (ids) => {
            const document = pdfFetchDocument(ids);
            return fetchFn(url, { ...init, body: JSON.stringify(document) }, ...rest);
          });
        } catch (error) {
          // Mesh may lose the error's code on its way to the result: the mapping reads it here.
          if (error instanceof GatewayError) outcomes.noteFailure(context.request, error);
          throw error;
        }
        return new Response(JSON.stringify(filled), { status: response.status, headers: answerHeaders(response) });
      };

      const fill = async (answer: { data?: unknown }, { markers }: PdfRewrite, fetchMissing: (ids: string[]) => Promise<Response>) => {
        const digests = markedStatements(answer.data, markers);
        const ids = [...digests.keys()];
        if (ids.length === 0) return { ...answer, data: fillPdfs(answer.data, markers, new Map()) };
        const held = await store.getMembers(group, ids);
        const pdfs = new Map<string, string | null>();
        const missing: string[] = [];
        const absent: string[] = [];
        ids.forEach((id, i) => {
          const value = held.values[i];
          if (value != null && value.startsWith(digests.get(id) ?? '-')) pdfs.set(id, value.slice(DIGEST_CHARS));
          else (value == null ? absent : missing).push(id);
        });
        missing.push(...absent);
        metrics.cacheLookup('pdf', 'hit', ids.length - missing.length);
        metrics.cacheLookup('pdf', 'miss', missing.length);
        // Why they missed, asked before the fetched PDFs are written (which would hide it).
        if (held.generation === UNKNOWN_GENERATION) metrics.cacheMiss('pdf', 'store_down', missing.length);
        else {
          metrics.cacheMiss('pdf', 'cold', missing.length - absent.length);
          if (absent.length > 0) void store.absences(group, absent).then((reasons) => reasons.forEach((reason) => metrics.cacheMiss('pdf', reason)));
        }
        if (missing.length > 0) {
          const fetched = await fetchMissing(missing);
          const result = await pdfAnswer(fetched);
          const toStore: GroupEntry[] = [];
          for (const field of Object.values(result.data ?? {})) {
            for (const node of field?.statements?.nodes ?? []) {
              if (typeof node.otxId !== 'string') continue;
              const pdf = typeof node.pdf === 'string' ? node.pdf : null;
              pdfs.set(node.otxId, pdf);
              const digest = digests.get(node.otxId);
              if (pdf !== null && digest !== undefined && pdf.length <= maxPdfBytes) {
                toStore.push({ id: node.otxId, value: `${digest}${pdf}`, ...(typeof node.uploaderId === 'string' ? { aliases: [node.uploaderId] } : {}) });
              }
            }
          }
          // Not awaited: the client need not wait for the write. The generation check keeps a
          // write that lands after a mutation's drop from storing what it changed.
          void store.putMembers(group, toStore, ttlMs, held.generation, maxEntries);
        }
        return { ...answer, data: fillPdfs(answer.data, markers, pdfs) };
      };

      setFetchFn(withPdfs);
    },
  };
}
