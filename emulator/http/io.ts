/**
 * Reading request bodies and writing JSON answers, as a Rails API app does: JSON bodies parsed
 * when the content type says JSON, form bodies when it says form, a 400 for malformed JSON.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Rails has no limit of its own; this one only keeps a runaway client from exhausting memory. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

export type Params = Record<string, unknown>;
export type BodyResult = { ok: true; params: Params; raw: Buffer } | { ok: false; status: 400 | 413 };

export function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) chunks.length = 0;
      else chunks.push(chunk);
    });
    // A body over the limit is read to its end before the 413, as Puma reads a whole body before
    // Rails answers: a client that reads only after sending (Python's http.client) gets the 413,
    // not a reset.
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function parseParams(req: IncomingMessage, raw: Buffer): BodyResult {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (raw.length === 0) return { ok: true, params: {}, raw };
  if (type.includes('json')) {
    try {
      const value: unknown = JSON.parse(raw.toString('utf8'));
      // Rails wraps a JSON array (or scalar) body in `_json`; such a body has no `query`.
      const params = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Params) : { _json: value };
      return { ok: true, params, raw };
    } catch {
      return { ok: false, status: 400 };
    }
  }
  // Rack reads a POST body without a media type as a form too.
  if (type.trim() === '' || type.includes('application/x-www-form-urlencoded')) {
    return { ok: true, params: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))), raw };
  }
  return { ok: true, params: {}, raw };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

export const BAD_JSON = { status: 400, error: 'Bad Request', errors: ['There was a problem in the JSON you submitted'] };
export const TOO_LARGE = { status: 413, error: 'Payload Too Large', errors: ['The request body is too large'] };
export const NOT_FOUND = { status: 404, error: 'Not Found' };

/** What `failStatus` answers: the HTML error page a Rails app (or a proxy in front of it) serves. */
export function sendFailure(res: ServerResponse, status: number): void {
  const body = `<!DOCTYPE html>\n<html><head><title>We're sorry, but something went wrong (${status})</title></head>` +
    `<body><h1>We're sorry, but something went wrong.</h1><p>Status ${status}</p></body></html>\n`;
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
