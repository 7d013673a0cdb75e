/**
 * routeTemplateOf (src/gateway/route-templates.ts): the template a path's SERVER span is named by,
 * never a part of the path a client chose; nothing for a path no route serves.
 */
import { describe, expect, it } from 'vitest';
import { ROUTE_TEMPLATES, routeTemplateOf } from '../../src/gateway/route-templates';

describe('routeTemplateOf', () => {
  it.each([
    ['/graphql', '/graphql'],
    ['/graphql/', '/graphql/'],
    ['/v2/graphql', '/v2/graphql'],
    ['/sandbox/v2/auth/sign_in', '/sandbox/v2/auth/sign_in'],
    ['/production/v2/auth/sign_out', '/production/v2/auth/sign_out'],
    ['/statements/fw2-1/pdf', '/statements/{otxId}/pdf'],
    ['/statements/123-45-6789%20john.doe@example.com/pdf', '/statements/{otxId}/pdf'],
    ['/metrics', '/metrics'],
    ['/ops', '/ops'],
    ['/ops/data', '/ops/data'],
    ['/ops/ops.js', '/ops/{file}'],
    ['/graphiql/4.5.0-abcdef12/start.js', '/graphiql/{version}/{file}'],
  ])('names %s by %s', (path, template) => {
    expect(routeTemplateOf(path)).toBe(template);
  });

  it.each(['/', '/a/secret-thing/x', '/statements/pdf', '/statements/a/b/pdf', '/staging/v2/graphql', '/v2/other', '/ops/a/b', '/graphiql/x', '/graphql/x', '/metrics/'])('names %s by nothing', (path) => {
    expect(routeTemplateOf(path)).toBeUndefined();
  });

  it('lists each template once, and each is its own route (no template is shadowed by another)', () => {
    expect(new Set(ROUTE_TEMPLATES).size).toBe(ROUTE_TEMPLATES.length);
    for (const template of ROUTE_TEMPLATES) expect(routeTemplateOf(template), template).toBe(template);
  });
});
