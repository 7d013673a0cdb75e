/**
 * The parameters of a front request's body, read by its media type as the upstream reads it
 * (Rails, and the emulator): JSON for a media type naming json, a URL-encoded form (the last of a
 * repeated field, as Rails keeps it; JSON.parse keeps the last of a repeated key too), in any case
 * and with any parameters (`; charset=utf-8`). Never "try JSON, then a form": a body that is JSON
 * text but sent as a form would be checked as one thing and read upstream as another. The sign-in
 * and the GraphQL pass-through both check what they read here, so what the gateway limits is what
 * the upstream acts on.
 *
 * `unsupported`: multipart, which Rails reads and the gateway does not. `malformed`: a JSON body
 * that does not parse, which the upstream refuses with its own 400 (front-answers.ts). undefined:
 * nothing the upstream would read either (no body, another type, a JSON array or scalar).
 */
export type BodyParams = Record<string, unknown>;

export function bodyParams(body: ArrayBuffer | undefined, contentType: string | null): BodyParams | 'unsupported' | 'malformed' | undefined {
  if (!body) return undefined;
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const text = Buffer.from(body).toString('utf8');
  if (media.includes('json')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as BodyParams) : undefined;
    } catch {
      return 'malformed';
    }
  }
  if (media === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(text);
    return Object.fromEntries([...new Set(form.keys())].map((name) => [name, form.getAll(name).at(-1)]));
  }
  return media.startsWith('multipart/') ? 'unsupported' : undefined;
}
