/**
 * useRoutes, in process: which paths and requests reach GraphQL, and the contract's JSON errors
 * for the rest. In-process specs are `<plugin>.unit.test.ts` beside the area's other tests,
 * on test/support/yoga.ts (Yoga's fetch, no gateway process).
 */
import { describe, expect, it } from 'vitest';
import { useRoutes } from '../../src/http/use-routes';
import { yogaWith } from '../support/yoga';

const JSON_TYPE = 'application/json; charset=utf-8';
const server = () => yogaWith([useRoutes({ graphqlPaths: ['/graphql', '/v2/graphql'] })]);
const post = (type: string, body = JSON.stringify({ query: '{ hello }' })) => ({ method: 'POST', headers: { 'content-type': type }, body });

describe('useRoutes', () => {
  it('answers an unknown path with 404 BAD_REQUEST naming the first GraphQL path, uncached', async () => {
    const answer = await server().fetch('/graphql/extra');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('content-type')).toBe(JSON_TYPE);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.text()).toBe('{"errors":[{"message":"Not found. GraphQL is served on /graphql.","extensions":{"code":"BAD_REQUEST"}}]}');
  });

  it('redirects a GET of /graphql/ to /graphql with its query string (308), and leaves a POST there a 404', async () => {
    const answer = await server().fetch('/graphql/?query=%7Bhello%7D', { redirect: 'manual' });
    expect(answer.status).toBe(308);
    expect(answer.headers.get('location')).toBe('/graphql?query=%7Bhello%7D');
    expect((await server().fetch('/graphql/', post('application/json'))).status).toBe(404);
  });

  it('answers a path Yoga would serve as GraphQL (any path ending in /graphql) with 404 unless listed', async () => {
    const answer = await yogaWith([useRoutes()]).fetch('/v2/graphql', post('application/json'));
    expect(answer.status).toBe(404);
    expect(await answer.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('serves GraphQL on every listed path, over GET and over POST with either JSON media type', async () => {
    const routes = server();
    for (const path of ['/graphql', '/v2/graphql']) {
      const answer = await routes.fetch(path, post('application/json'));
      expect(answer.status, path).toBe(200);
      expect(await answer.json()).toEqual({ data: { hello: 'world' } });
    }
    expect(await (await routes.fetch('/graphql?query=%7Bhello%7D')).json()).toEqual({ data: { hello: 'world' } });
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/graphql+json']) {
      expect((await routes.fetch('/graphql', post(type))).status, type).toBe(200);
    }
  });

  it('refuses a POST body that is not JSON (what cross-site forms send) with 415 BAD_REQUEST', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain', '']) {
      const answer = await server().fetch('/graphql', post(type, 'query=%7Bhello%7D'));
      expect(answer.status, type).toBe(415);
      expect(await answer.text()).toBe('{"errors":[{"message":"Send GraphQL requests as application/json.","extensions":{"code":"BAD_REQUEST"}}]}');
    }
  });

  it('refuses a JSON type Yoga does not read (another spelling, a response type) with the JSON 415, not Yoga\'s empty one (regression)', async () => {
    for (const type of ['Application/JSON', 'application/json ; charset=utf-8', 'application/json, text/plain', 'application/graphql-response+json']) {
      const answer = await server().fetch('/graphql', post(type));
      expect(answer.status, type).toBe(415);
      expect(await answer.json(), type).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST' } }] });
    }
  });

  it('refuses other methods with 405 BAD_REQUEST and Allow: GET, POST, and lets OPTIONS (CORS preflight) through', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const answer = await server().fetch('/graphql', { method });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, POST');
      expect(await answer.json()).toEqual({ errors: [{ message: 'GraphQL is served over GET (queries) and POST.', extensions: { code: 'BAD_REQUEST' } }] });
    }
    expect((await server().fetch('/graphql', { method: 'OPTIONS' })).status).not.toBe(405);
  });
});
