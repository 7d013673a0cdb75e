/** pathnameOf (src/request/url-path.ts) gives what `new URL(url).pathname` gives, for serialised URLs. */
import { describe, expect, it } from 'vitest';
import { pathnameOf } from '../../src/request/url-path';

describe('pathnameOf', () => {
  it.each([
    'http://127.0.0.1:4000/graphql',
    'http://gateway.test/v2/graphql?x=1',
    'http://gateway.test/production/v2/graphql#fragment',
    'http://gateway.test/sandbox/v2/auth/sign_in?a=1#b',
    'http://[::1]:4000/ops/data?x=/y',
    'http://gateway.test',
    'http://gateway.test?x',
    new Request('http://gateway.test/a/../v2/%7Egraphql?q').url,
  ])('%s', (url) => {
    expect(pathnameOf(url)).toBe(new URL(url).pathname);
  });
});
