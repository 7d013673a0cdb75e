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

/**
 * The media type as Rack reads it: up to the first `;` or `,`, trimmed, in lower case; '' for none.
 * (`application/x-www-form-urlencoded, text/plain` is a form to Rails: it must be one here too.)
 */
export function mediaTypeOf(contentType: string | null): string {
  return (contentType ?? '').split(/[;,]/)[0]?.trim().toLowerCase() ?? '';
}

/** A body read (and forwarded) as JSON: any media type naming json, more than Rails parses as JSON. */
const isJsonMedia = (media: string): boolean => media.includes('json');

/** A body Rack reads as a form: that media type, or a POST body with no media type at all. */
export const isFormMedia = (media: string): boolean => media === 'application/x-www-form-urlencoded' || media === '';

export function bodyParams(body: ArrayBuffer | undefined, contentType: string | null): BodyParams | 'unsupported' | 'malformed' | undefined {
  if (!body || body.byteLength === 0) return undefined;
  const media = mediaTypeOf(contentType);
  const text = Buffer.from(body).toString('utf8');
  if (isJsonMedia(media)) {
    try {
      const parsed = JSON.parse(text) as unknown;
      return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as BodyParams) : undefined;
    } catch {
      return 'malformed';
    }
  }
  if (isFormMedia(media)) {
    const form = new URLSearchParams(text);
    return Object.fromEntries([...new Set(form.keys())].map((name) => [name, form.getAll(name).at(-1)]));
  }
  return media.startsWith('multipart/') ? 'unsupported' : undefined;
}

/** The fields of a form the upstream may act on: GraphQL's, and devise's credential. */
const FORWARDED_FORM_FIELDS = ['query', 'operationName', 'variables', 'access-token', 'client', 'uid'];

/**
 * What goes upstream for a GraphQL body: exactly what the gateway read and checked, never bytes
 * Rails could read differently. JSON as it came (both parse it strictly alike); a form rebuilt from
 * the fields read (Rack's parser differs from URLSearchParams on spaces after `&` and, in Rack 2,
 * on brackets around a name: a field the gateway did not read as `query` must not become one);
 * any other body not at all (Rails reads none of it).
 */
export function forwardedBody(body: ArrayBuffer | undefined, contentType: string | null, params: BodyParams | undefined): { readonly body?: ArrayBuffer; readonly contentType?: string } {
  if (!body || body.byteLength === 0) return {};
  const media = mediaTypeOf(contentType);
  if (isJsonMedia(media)) return { body };
  if (!isFormMedia(media) || !params) return {};
  const form = new URLSearchParams();
  for (const name of FORWARDED_FORM_FIELDS) {
    const value = params[name];
    if (typeof value === 'string') form.set(name, value);
  }
  return { body: new TextEncoder().encode(form.toString()).buffer, contentType: 'application/x-www-form-urlencoded' };
}

/** devise's credential fields, which the upstream also reads from a body's parameters. */
const CREDENTIAL_FIELDS = ['access-token', 'client', 'uid'];

/** The body's own credential fields (devise reads a credential from the headers, else from these). */
export function credentialFields(params: BodyParams): Readonly<Record<string, string>> {
  return Object.fromEntries(CREDENTIAL_FIELDS.flatMap((name) => (typeof params[name] === 'string' ? [[name, params[name]]] : [])));
}

/**
 * What goes upstream in place of a query text graphql-js cannot parse (pass-through-limits.ts): an
 * empty query, which runs nothing, with the body's credential fields, so that the upstream still
 * says whether it accepts the credential (its answer's status and headers) without ever reading
 * a document the gateway could not measure.
 */
export function emptyQueryBody(fields: Readonly<Record<string, string>>): { readonly body: ArrayBuffer; readonly contentType: string } {
  return { body: new TextEncoder().encode(JSON.stringify({ query: '', ...fields })).buffer, contentType: 'application/json' };
}
