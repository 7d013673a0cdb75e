/**
 * GraphiQL for developers, served entirely by the gateway (the contract's "Browsers" section).
 * Yoga's built-in page loads its script, styles and Monaco's workers from unpkg and its icon from
 * GitHub: without internet it stays at "Loading…". This plugin serves the same GraphiQL
 * (`@graphql-yoga/graphiql`, the bundle Yoga's page loads) from the installed package, under a CSP
 * that lets the page reach nothing but the gateway. The plugin list leaves it out in production,
 * where the page and its assets are 404 like any unknown path.
 *
 * The page is at the GraphQL endpoint for `GET` with `Accept: text/html` (where Yoga served it);
 * its assets at `/graphiql/<version>/...`, where the version names both the package and the
 * gateway's bootstrap script, so browsers may keep them for a year. URLs in the page are relative,
 * so a proxy that mounts the gateway under a prefix keeps working.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'graphql-yoga';
import { STARTER_DOCUMENT } from './starter-document';

export interface GraphiQLPageOptions {
  /** The GraphQL endpoint: the page is served there to browsers. Default `/graphql`. */
  readonly endpoint?: string;
  /** The page's title. */
  readonly title?: string;
  /**
   * The headers GraphiQL starts with. Default `X-CSRF: 1`, which every cookie request needs (the
   * CSRF check): without it, a developer's first query after `login` would be refused.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The editor's text when the page's URL has no `?query=` (one there wins, as links to GraphiQL
   * expect). Default: a ready sign-in and a first read (starter-document.ts).
   */
  readonly defaultQuery?: string;
}

/** Where the assets live; `/graphiql/<version>/<file>`. */
export const GRAPHIQL_ASSETS = '/graphiql/';

/**
 * Each directive is what GraphiQL needs and no more:
 * - script-src 'self': GraphiQL's bundle and the bootstrap are files of the gateway; no inline
 *   script (the options travel in a JSON data block, which is never executed) and no eval.
 * - worker-src 'self': Monaco's editor, JSON and GraphQL workers, started from their own URLs.
 * - style-src 'self' 'unsafe-inline': the stylesheet is a file, but Monaco and GraphiQL write
 *   `<style>` elements and style attributes at run time (the editor's theme, measured layout).
 *   Inline styles cannot run code; scripts stay strict.
 * - font-src data: the stylesheet embeds its fonts (Roboto, Fira Code, codicons) as data: URLs.
 * - img-src 'self' data: GraphiQL's icons are inline SVG or data: URLs; the favicon is `data:,`
 *   (no request at all, not even to /favicon.ico).
 * - connect-src 'self': GraphQL requests go to the gateway only.
 * - base-uri, form-action 'none'; frame-ancestors 'none': no base rewriting, no form posting
 *   elsewhere, no framing (clickjacking a logged-in GraphiQL).
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'font-src data:',
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': GRAPHIQL_CSP,
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};
const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * Whether GraphiQL's package is installed: it is a development dependency, so a production install
 * (`npm ci --omit=dev`) running outside NODE_ENV=production simply has no GraphiQL.
 */
export function graphiqlInstalled(): boolean {
  try {
    createRequire(__filename).resolve('@graphql-yoga/graphiql/package.json');
    return true;
  } catch {
    return false;
  }
}

/** The files served, by name under the version; read on first request, then kept. */
function assetFiles(): { version: string; files: Map<string, { file: string; type: string }> } {
  const packageJson = createRequire(__filename).resolve('@graphql-yoga/graphiql/package.json');
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  const dist = path.join(path.dirname(packageJson), 'dist');
  const start = path.join(__dirname, 'assets', 'start.js');
  // The bootstrap changes with the gateway, not with the package: both name the version.
  const startHash = createHash('sha256').update(readFileSync(start)).digest('hex').slice(0, 8);
  return {
    version: `${version}-${startHash}`,
    files: new Map([
      ['start.js', { file: start, type: JS }],
      ['yoga-graphiql.umd.js', { file: path.join(dist, 'yoga-graphiql.umd.js'), type: JS }],
      ['graphiql.css', { file: path.join(dist, 'graphiql.css'), type: CSS }],
      // Monaco's workers, by the labels Monaco asks for. The GraphQL worker's double dot is the
      // package's own file name.
      ['editor.worker.js', { file: path.join(dist, 'monacoeditorwork', 'editor.worker.bundle.js'), type: JS }],
      ['json.worker.js', { file: path.join(dist, 'monacoeditorwork', 'json.worker.bundle.js'), type: JS }],
      ['graphql.worker.js', { file: path.join(dist, 'monacoeditorwork', 'graphql.worker..bundle.js'), type: JS }],
    ]),
  };
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
/** JSON inside a `<script>` element: no `</script>` or `<!--` can end or change it. */
const jsonForScript = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

function pageHtml(title: string, base: string, graphiql: Record<string, unknown>, defaultQuery: string): string {
  const config = {
    graphiql,
    // Not GraphiQL's `query` option, which Yoga's GraphiQL prefers to `?query=`: the bootstrap
    // uses it only when the URL has none.
    defaultQuery,
    workers: { editorWorkerService: `${base}editor.worker.js`, json: `${base}json.worker.js`, graphql: `${base}graphql.worker.js` },
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${base}graphiql.css">
<script id="graphiql-config" type="application/json">${jsonForScript(config)}</script>
<script src="${base}start.js" defer></script>
<script src="${base}yoga-graphiql.umd.js" defer></script>
</head>
<body class="no-focus-outline">
<noscript>GraphiQL needs JavaScript.</noscript>
<div id="root">Loading ${escapeHtml(title)}…</div>
</body>
</html>
`;
}

export function useGraphiQLPage({ endpoint = '/graphql', title = 'GraphiQL', headers = { 'X-CSRF': '1' }, defaultQuery = STARTER_DOCUMENT }: GraphiQLPageOptions = {}): Plugin {
  const { version, files } = assetFiles();
  const prefix = `${GRAPHIQL_ASSETS}${version}/`;
  // Relative to the endpoint's directory (`/graphql` -> `graphiql/...`), as the browser resolves it.
  const base = `${path.posix.relative(path.posix.dirname(endpoint), prefix)}/`;
  // No `endpoint`: GraphiQL posts to the page's own path, which is the endpoint (also behind a prefix).
  const page = pageHtml(title, base, { title, headers: JSON.stringify(headers, null, 2), credentials: 'same-origin' }, defaultQuery);
  const loaded = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  const load = (file: string) => {
    let body = loaded.get(file);
    if (!body) {
      body = readFile(file).then((bytes) => new Uint8Array(bytes));
      body.catch(() => loaded.delete(file));
      loaded.set(file, body);
    }
    return body;
  };

  return {
    async onRequest(payload) {
      const { request, url } = payload;
      const endResponse = (response: Response) => payload.endResponse(response);
      if (url.pathname === endpoint) {
        // Yoga's own rule for "a browser asks": GET with text/html among the accepted types.
        if (request.method === 'GET' && request.headers.get('accept')?.includes('text/html')) endResponse(new Response(page, { status: 200, headers: PAGE_HEADERS }));
        return;
      }
      if (!url.pathname.startsWith(prefix) || (request.method !== 'GET' && request.method !== 'HEAD')) return;
      const asset = files.get(url.pathname.slice(prefix.length));
      if (!asset) return; // the routes plugin answers 404
      const body = await load(asset.file);
      endResponse(
        new Response(request.method === 'HEAD' ? null : body, {
          status: 200,
          headers: {
            'content-type': asset.type,
            'content-length': String(body.byteLength),
            // The workers run under their own response's CSP: the same as the page's.
            'content-security-policy': GRAPHIQL_CSP,
            // The version in the path changes with the content: never revalidated.
            'cache-control': 'public, max-age=31536000, immutable',
          },
        }),
      );
    },
  };
}
