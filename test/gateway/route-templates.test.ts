/**
 * The route templates (src/gateway/route-templates.ts) are the gateway's real routes: a path of
 * each is answered by its route, not by the 404 for paths no route serves. Against an in-process
 * gateway (GraphiQL's files are found from its page, whose version the page names).
 */
import { describe, expect, it } from 'vitest';
import { ROUTE_TEMPLATES, routeTemplateOf } from '../../src/gateway/route-templates';
import { useGatewayOnEmulators } from '../support/gateway';

/** What the gateway answers for a path no route serves (http/use-routes.ts). */
const NO_ROUTE = 'Not found. GraphQL is served on /graphql.';

describe('the route templates', () => {
  const { gateway } = useGatewayOnEmulators();

  async function pathsOf(template: string): Promise<string> {
    if (template.startsWith('/graphiql/')) {
      const page = await (await fetch(`${gateway.current.url}/graphql`, { headers: { accept: 'text/html' } })).text();
      const start = /"(graphiql\/[^"/]+\/start\.js)"/.exec(page)?.[1];
      expect(start, 'GraphiQL\'s page names its files').toBeDefined();
      return `/${start ?? ''}`;
    }
    return template.replace('{otxId}', 'fw2-route-check').replace('{file}', 'ops.js');
  }

  it('answers a path of each template by its route, and names that path by the template', async () => {
    expect(ROUTE_TEMPLATES.length).toBeGreaterThan(10);
    for (const template of ROUTE_TEMPLATES) {
      const path = await pathsOf(template);
      expect(routeTemplateOf(path), path).toBe(template);
      const answer = await fetch(`${gateway.current.url}${path}`, { redirect: 'manual', headers: { accept: 'application/json' } });
      expect(await answer.text(), `${path}: ${answer.status}`).not.toContain(NO_ROUTE);
    }
  });

  it('has no template for what the 404 answers', async () => {
    const answer = await fetch(`${gateway.current.url}/a/secret-thing/x`);
    expect([answer.status, await answer.text()]).toEqual([404, expect.stringContaining(NO_ROUTE)]);
    expect(routeTemplateOf('/a/secret-thing/x')).toBeUndefined();
  });
});
