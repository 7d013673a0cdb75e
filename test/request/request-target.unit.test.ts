/**
 * readRequestTarget and hostRefusal (src/request/request-target.ts): which targets and Host headers
 * the edge lets through, and the property that makes the one reading safe: for every target it
 * accepts, the URL parser reads exactly the path it read, whatever valid Host comes with it.
 */
import { describe, expect, it } from 'vitest';
import { hostRefusal, readRequest, readRequestTarget } from '../../src/request/request-target';
import { pathnameOf } from '../../src/request/url-path';

const ACCEPTED = [
  '/', '/graphql', '/graphql/', '/graphql?query=%7B__typename%7D', '/v2/auth/sign_in', '/production/v2/graphql',
  '/statements/fw2-1/pdf', '/statements/a%20b%40c/pdf', '/statements/%E0%A4%A/pdf', '/.well-known/x', '/a..b/..c/c..',
  "/a/!$&'()*+,;=:@~-_", '/ops/data?x=/../%2F//\\', '/x?a="b"&c=<d>',
];

const REFUSED = [
  // Dot segments, plain and percent-encoded in either case.
  '/.', '/./graphql', '/x/..', '/x/../graphql', '/%2e/graphql', '/%2E/graphql', '/x/%2e%2e/graphql', '/x/%2E%2e', '/x/.%2E/y', '/x/%2e./y',
  // Encoded slash or backslash, raw backslash, empty segments.
  '/x%2F../graphql', '/x%2fy', '/x%5C..', '/x%5cy', '/x\\..\\graphql', '\\graphql', '//graphql', '/graphql//', '/a//b',
  // Not origin-form, a fragment, characters the URL parser would re-encode.
  'http://evil/metrics', 'https://gateway.example/graphql', '*', '', 'graphql', '/graphql#x', '/a b', '/a"b', '/a{b}', '/a|b', '/a^b', '/a`b', '/a<b>',
];

describe('readRequestTarget', () => {
  it.each(ACCEPTED)('accepts %s', (target) => {
    const read = readRequestTarget(target);
    expect(read).toEqual({ path: target.split('?')[0], search: target.includes('?') ? target.slice(target.indexOf('?')) : '' });
  });

  it.each(REFUSED)('refuses %s', (target) => {
    expect(readRequestTarget(target)).toEqual({ refusal: expect.any(String) });
  });

  it('refuses a missing target', () => {
    expect(readRequestTarget(undefined)).toEqual({ refusal: expect.any(String) });
  });

  it.each(ACCEPTED)('reads %s as the URL parser does, behind any valid Host', (target) => {
    const read = readRequestTarget(target);
    if (!('path' in read)) throw new Error(read.refusal);
    for (const host of ['gateway.example', '127.0.0.1:4000', '[::1]:4000', "a!$&'()*+,;=b"]) {
      expect(new URL(`http://${host}${target}`).pathname, host).toBe(read.path);
      expect(pathnameOf(`http://${host}${target}`), host).toBe(read.path);
    }
  });
});

describe('hostRefusal', () => {
  const headers = (host: string | undefined) => (host === undefined ? {} : { host });
  const raw = (...hosts: string[]) => hosts.flatMap((host) => ['Host', host]);

  it.each(['gateway.example', 'gateway.example:8443', 'GATEWAY.example.', '10.0.0.1', '[::1]', '[2001:db8::1]:443', 'sub_domain.example', 'a%41b'])('accepts %s', (host) => {
    expect(hostRefusal(headers(host), raw(host))).toBeUndefined();
  });

  it.each(['x\\metrics?', 'x/metrics', 'x?', 'x#', 'user@x', 'x:port', 'x:', 'x:99999', '1.2.3.256', '[::1', '[v1.x]', 'x y', '', 'a%2fb', 'é.example'])('refuses %s', (host) => {
    expect(hostRefusal(headers(host), raw(host))).toEqual(expect.any(String));
  });

  it('accepts no Host at all (HTTP/1.0): the target alone decides', () => {
    expect(hostRefusal({}, [])).toBeUndefined();
  });

  it('refuses two Host headers, whatever Node kept of them', () => {
    expect(hostRefusal(headers('a.example'), ['Host', 'a.example', 'host', 'b.example'])).toEqual(expect.any(String));
  });
});

describe('readRequest', () => {
  it('refuses a bad Host before reading the target', () => {
    expect(readRequest({ url: '/graphql', headers: { host: 'x\\metrics?' }, rawHeaders: ['Host', 'x\\metrics?'] })).toEqual({ refusal: 'The Host header must be host[:port].' });
    expect(readRequest({ url: '/graphql', headers: { host: 'gateway.example' }, rawHeaders: ['Host', 'gateway.example'] })).toEqual({ path: '/graphql', search: '' });
  });
});
