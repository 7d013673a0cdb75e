/** The start-up warning for allowed origins that a SameSite=Strict cookie cannot serve. */
import { describe, expect, it } from 'vitest';
import { sameSiteWarnings } from '../../src/config/same-site';

describe('sameSiteWarnings', () => {
  it('warns about a page on localhost calling a gateway on 127.0.0.1, naming both hosts', () => {
    const [warning, ...rest] = sameSiteWarnings({ host: '127.0.0.1', allowedOrigins: ['http://localhost:5173'] });
    expect(rest).toEqual([]);
    expect(warning).toMatch(/^ALLOWED_ORIGINS: http:\/\/localhost:5173 is on localhost and the gateway on 127\.0\.0\.1: .*different sites/);
  });

  it('warns about another IP address, IPv6 included', () => {
    expect(sameSiteWarnings({ host: 'localhost', allowedOrigins: ['http://127.0.0.1:5173', 'http://[::1]:5173'] })).toHaveLength(2);
  });

  it('is quiet for the same host on another port, for host names, and for a gateway listening on every address', () => {
    expect(sameSiteWarnings({ host: '127.0.0.1', allowedOrigins: ['http://127.0.0.1:5173'] })).toEqual([]);
    expect(sameSiteWarnings({ host: '::1', allowedOrigins: ['http://[::1]:5173'] })).toEqual([]);
    expect(sameSiteWarnings({ host: '127.0.0.1', allowedOrigins: ['https://app.example.com'] })).toEqual([]);
    expect(sameSiteWarnings({ host: '0.0.0.0', allowedOrigins: ['http://localhost:5173'] })).toEqual([]);
  });
});
