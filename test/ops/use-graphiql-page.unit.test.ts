/**
 * useGraphiQLPage, in process: the page only for a browser's GET at the endpoint, the options it
 * starts with, asset URLs relative to the endpoint, and the assets (versioned, immutable, HEAD
 * without a body). In-process specs are `<plugin>.unit.test.ts` beside the area's other
 * tests (test/support/yoga.ts); graphiql.test.ts renders the page in Chromium through the gateway.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { useRoutes } from '../../src/http/use-routes';
import { GRAPHIQL_ASSETS, GRAPHIQL_CSP, useGraphiQLPage, type GraphiQLPageOptions } from '../../src/ops/graphiql/use-graphiql-page';
import { yogaWith } from '../support/yoga';

const HTML = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };

/** Yoga's own GraphiQL (which loads from a CDN) off, as in the gateway. */
const server = (options: GraphiQLPageOptions = {}, paths = ['/graphql']) => yogaWith([useGraphiQLPage(options), useRoutes({ graphqlPaths: paths })], { graphiql: false });

/** The JSON the page's bootstrap reads. */
function pageConfig(html: string): { graphiql: { headers: string; credentials: string; title: string; query?: string }; workers: Record<string, string>; defaultQuery: string } {
  const json = /<script id="graphiql-config" type="application\/json">(.*?)<\/script>/s.exec(html)?.[1];
  if (!json) throw new Error('the page has no graphiql-config block');
  return JSON.parse(json) as ReturnType<typeof pageConfig>;
}

const assetPaths = (html: string) => [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => match[1] ?? '').filter((url) => !url.startsWith('data:'));

describe('useGraphiQLPage', () => {
  it('serves the page at the endpoint to a browser\'s GET, under its CSP, starting with the X-CSRF header and same-origin credentials', async () => {
    const answer = await server().fetch('/graphql', { headers: HTML });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toBe(GRAPHIQL_CSP);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    const config = pageConfig(await answer.text());
    expect(JSON.parse(config.graphiql.headers)).toEqual({ 'X-CSRF': '1' });
    expect(config.graphiql.credentials).toBe('same-origin');
  });

  it('starts the editor on a ready login mutation and a first query, which the bootstrap uses only without ?query= (not GraphiQL\'s query option, which would beat the URL)', async () => {
    const config = pageConfig(await (await server().fetch('/graphql', { headers: HTML })).text());
    expect(config.defaultQuery).toMatch(/^mutation Login \{\n {2}login\(\n {4}email: "demo@example.com"/m);
    expect(config.defaultQuery).toMatch(/^query Statements \{$/m);
    expect(config.graphiql.query).toBeUndefined();
    // Valid against the gateway's public schema: both operations run as they stand.
    const schema = buildSchema(readFileSync(path.resolve(__dirname, '../../schema/gateway.graphql'), 'utf8'));
    expect(validate(schema, parse(config.defaultQuery)).map((error) => error.message)).toEqual([]);
    const custom = pageConfig(await (await server({ defaultQuery: '{ hello }' }).fetch('/graphql', { headers: HTML })).text());
    expect(custom.defaultQuery).toBe('{ hello }');
  });

  it('leaves GraphQL to Yoga for a GET that does not accept HTML and for a POST', async () => {
    const graphiql = server();
    expect(await (await graphiql.fetch('/graphql?query=%7Bhello%7D', { headers: { accept: 'application/json' } })).json()).toEqual({ data: { hello: 'world' } });
    expect((await graphiql.graphql('{ hello }', { headers: HTML })).body).toEqual({ data: { hello: 'world' } });
  });

  it('links its assets relative to the endpoint, so a proxy may mount the gateway under a prefix', async () => {
    const html = await (await server({ endpoint: '/api/graphql' }, ['/api/graphql']).fetch('/api/graphql', { headers: HTML })).text();
    const paths = assetPaths(html);
    expect(paths).toHaveLength(3);
    for (const path of paths) expect(path).toMatch(/^\.\.\/graphiql\/[^/]+\/(graphiql\.css|start\.js|yoga-graphiql\.umd\.js)$/);
    expect(Object.values(pageConfig(html).workers)).toEqual(expect.arrayContaining([expect.stringMatching(/^\.\.\/graphiql\/[^/]+\/editor\.worker\.js$/)]));
  });

  it('serves each asset of its version with its type, length, CSP and a year of immutable caching; HEAD without the body', async () => {
    const graphiql = server();
    const html = await (await graphiql.fetch('/graphql', { headers: HTML })).text();
    const workers = Object.values(pageConfig(html).workers);
    for (const relative of [...assetPaths(html), ...workers]) {
      const path = new URL(relative, 'http://gateway.test/graphql').pathname;
      expect(path.startsWith(GRAPHIQL_ASSETS)).toBe(true);
      const answer = await graphiql.fetch(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(path.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(answer.headers.get('content-security-policy')).toBe(GRAPHIQL_CSP);
      const body = await answer.arrayBuffer();
      expect(Number(answer.headers.get('content-length'))).toBe(body.byteLength);
      const head = await graphiql.fetch(path, { method: 'HEAD' });
      expect(head.headers.get('content-length')).toBe(String(body.byteLength));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
    }
  });

  it('leaves unknown files, other versions and POSTs under /graphiql/ to the routes\' 404', async () => {
    const graphiql = server();
    const start = assetPaths(await (await graphiql.fetch('/graphql', { headers: HTML })).text()).find((path) => path.endsWith('start.js')) ?? '';
    const version = start.split('/')[1] ?? '';
    for (const [path, method] of [[`/graphiql/${version}/package.json`, 'GET'], ['/graphiql/0.0.0-00000000/start.js', 'GET'], [`/graphiql/${version}/start.js`, 'POST']] as const) {
      expect((await graphiql.fetch(path, { method })).status, `${method} ${path}`).toBe(404);
    }
  });
});
