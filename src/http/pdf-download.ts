/**
 * The parts of `GET /statements/{otxId}/pdf` that are not plumbing: which paths it answers, which
 * requests it refuses before anything acts (a subresource that cannot show a document), the
 * GraphQL read it runs for them (the `pdf` field, so access and the PDF cache are the field's), and
 * how that read's answer becomes a PDF, a 404 or the read's own error.
 */
import { DEFAULT_MESSAGES, ERROR_STATUS, errorResponse, isErrorCode } from '../errors';
import { JSON_HEADERS } from '../errors/json-response';

/** The read: the generic statement type carries the form's identifier (`formType`, e.g. `fw2`). */
export const PDF_QUERY = 'query StatementPdf($ids: [String!]) { getStatements(otxIds: $ids) { statements { nodes { otxId uploaderId formType pdf } } } }';

const PDF_PATH = /^\/statements\/([^/]+)\/pdf$/;
/** Far above any otxId; a longer one is not looked up (it cannot exist). */
const MAX_OTX_ID_LENGTH = 256;

/** The route's statement id, or undefined when the path is not the route's. `null`: the route's, but no id can match. */
export function otxIdOfPath(pathname: string): string | null | undefined {
  const match = PDF_PATH.exec(pathname);
  if (!match?.[1]) return undefined;
  try {
    const id = decodeURIComponent(match[1]);
    return id.length > 0 && id.length <= MAX_OTX_ID_LENGTH ? id : null;
  } catch {
    return null;
  }
}

/**
 * The Sec-Fetch-Dest values of requests that can show a PDF: a page (a link, a new tab), a frame,
 * an embed or object, and `empty` (fetch, a download). Any other is a subresource (`image`,
 * `script`, `style`, `font`, a worker ...): an `<img src>` on any page of the same site carries the
 * SameSite=Strict cookie, so it would spend the user's limits and keep their session alive without
 * ever showing them anything. An allow-list, so a destination browsers add later is refused too.
 */
const DOCUMENT_DESTINATIONS: ReadonlySet<string> = new Set(['document', 'iframe', 'frame', 'fencedframe', 'embed', 'object', 'empty']);

/** The request's Sec-Fetch-Dest when it names a subresource that cannot show a PDF; undefined for others and without one. */
export function subresourceDestination(request: Request): string | undefined {
  const destination = request.headers.get('sec-fetch-dest')?.trim().toLowerCase();
  return destination && !DOCUMENT_DESTINATIONS.has(destination) ? destination : undefined;
}

/** Longer header values are cut in the message (a client chooses the header). */
const SHOWN_DESTINATION_LENGTH = 40;

export function subresourceMessage(destination: string): string {
  return `Statement PDFs open as a page, in a frame or as a download; a request from a subresource (Sec-Fetch-Dest: ${destination.slice(0, SHOWN_DESTINATION_LENGTH)}), such as an <img> or a <script>, is refused.`;
}

/**
 * The PDF's Content-Security-Policy: `sandbox` (a PDF viewer that runs the file's scripts runs them
 * in an opaque origin, without the gateway's cookies) and `frame-ancestors` for the gateway's own
 * pages and ALLOWED_ORIGINS (the pages that may embed it; no other site can frame it to trick a click).
 */
export function pdfContentSecurityPolicy(allowedOrigins: readonly string[]): string {
  return ['sandbox', `frame-ancestors ${["'self'", ...allowedOrigins].join(' ')}`].join('; ');
}

/** Letters, digits, `.`, `_` and `-`, not leading with a dot: safe in every file system and header. */
const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;

/** `<form>-<uploaderId>.pdf`, the otxId standing in for an uploaderId that is not safe as a file name. */
export function pdfFileName(node: { readonly otxId: string; readonly uploaderId?: string | null; readonly formType?: string | null }): string {
  const form = node.formType && SAFE_NAME.test(node.formType) ? node.formType.toLowerCase() : 'statement';
  const id = node.uploaderId && SAFE_NAME.test(node.uploaderId) ? node.uploaderId : node.otxId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return `${form}-${id}.pdf`;
}

/** The same answer for a statement that does not exist and one of someone else: nothing to tell them apart. */
function notFound(): Response {
  return errorResponse(404, 'NOT_FOUND', DEFAULT_MESSAGES.NOT_FOUND);
}

interface PdfNode {
  readonly otxId: string;
  readonly uploaderId?: string | null;
  readonly formType?: string | null;
  readonly pdf?: string | null;
}

interface ReadAnswer {
  readonly data?: { readonly getStatements?: { readonly statements?: { readonly nodes?: readonly PdfNode[] | null } | null } | null } | null;
  readonly errors?: readonly { readonly extensions?: { readonly code?: unknown } }[];
}

/** Headers of the inner answer a client must still get: its cookie changes and when to retry. */
function carriedHeaders(inner: Response): Headers {
  const headers = new Headers();
  for (const value of inner.headers.getSetCookie()) headers.append('set-cookie', value);
  const retryAfter = inner.headers.get('retry-after');
  if (retryAfter !== null) headers.set('retry-after', retryAfter);
  return headers;
}

/**
 * The download's answer from the read's: its errors as they are (the status their first code
 * names), no statement as 404, else the PDF's bytes.
 */
export async function pdfAnswer(inner: Response, otxId: string, disposition: 'attachment' | 'inline', contentSecurityPolicy: string): Promise<Response> {
  const headers = carriedHeaders(inner);
  const answer = (await inner.json()) as ReadAnswer;
  if (answer.errors?.length) {
    const code = answer.errors[0]?.extensions?.code;
    const status = isErrorCode(code) && ERROR_STATUS[code] >= 400 ? ERROR_STATUS[code] : 500;
    for (const [name, value] of Object.entries(JSON_HEADERS)) headers.set(name, value);
    return new Response(JSON.stringify({ errors: answer.errors }), { status, headers });
  }
  const node = answer.data?.getStatements?.statements?.nodes?.find((candidate) => candidate.otxId === otxId);
  if (!node) {
    const refused = notFound();
    headers.forEach((value, name) => refused.headers.append(name, value));
    return refused;
  }
  if (typeof node.pdf !== 'string') {
    const failed = errorResponse(502, 'UPSTREAM_ERROR', 'The Statement Filing Service gave no PDF for this statement.');
    headers.forEach((value, name) => failed.headers.append(name, value));
    return failed;
  }
  const bytes = Buffer.from(node.pdf, 'base64');
  headers.set('content-type', 'application/pdf');
  headers.set('content-length', String(bytes.length));
  headers.set('content-disposition', `${disposition}; filename="${pdfFileName(node)}"`);
  headers.set('cache-control', 'no-store');
  // On an attachment too: a browser may still show it (a PDF viewer extension, a save-then-open).
  headers.set('content-security-policy', contentSecurityPolicy);
  return new Response(bytes, { status: 200, headers });
}
