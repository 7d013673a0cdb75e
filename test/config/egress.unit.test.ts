/**
 * HTTPS_PROXY, HTTP_PROXY and NO_PROXY (src/config/egress.ts): resolved once into the values both
 * egress clients use, lower-case forms winning, nothing at all without a proxy; and OPS_PORT.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index';
import { configRefusal } from '../support/config';

const refusal = (env: NodeJS.ProcessEnv): string => configRefusal(env).message;

describe('the egress proxy variables', () => {
  it('leaves egress alone without a proxy (NO_PROXY alone changes nothing)', () => {
    expect(loadConfig({}).egressProxy).toBeUndefined();
    expect(loadConfig({ NO_PROXY: 'example.com' }).egressProxy).toBeUndefined();
  });

  it('sends https:// through HTTPS_PROXY and http:// through HTTP_PROXY, with NO_PROXY as written', () => {
    expect(loadConfig({ HTTPS_PROXY: 'http://tls-proxy:3128', HTTP_PROXY: 'http://plain-proxy:3128', NO_PROXY: '.svc, .cluster.local' }).egressProxy)
      .toEqual({ httpsProxy: 'http://tls-proxy:3128', httpProxy: 'http://plain-proxy:3128', noProxy: '.svc, .cluster.local' });
    expect(loadConfig({ HTTPS_PROXY: 'http://tls-proxy:3128' }).egressProxy).toEqual({ httpsProxy: 'http://tls-proxy:3128', httpProxy: '', noProxy: '' });
  });

  it('sends https:// through HTTP_PROXY too when HTTPS_PROXY is unset, as undici does', () => {
    expect(loadConfig({ HTTP_PROXY: 'http://proxy:3128' }).egressProxy).toEqual({ httpsProxy: 'http://proxy:3128', httpProxy: 'http://proxy:3128', noProxy: '' });
  });

  it('prefers the lower-case forms, as curl and undici do', () => {
    expect(loadConfig({ HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2', NO_PROXY: 'upper.example', no_proxy: 'lower.example' }).egressProxy)
      .toEqual({ httpsProxy: 'http://lower:2', httpProxy: '', noProxy: 'lower.example' });
  });

  it('refuses a proxy that is not an http:// or https:// URL, naming the variable and not the value', () => {
    const message = refusal({ HTTPS_PROXY: 'socks5://user:pr0xy-pass@proxy:1080', http_proxy: 'proxy:3128' });
    expect(message).toContain('HTTPS_PROXY: expected a http: or https: URL');
    expect(message).toContain('http_proxy: expected a http: or https: URL');
    expect(message).not.toContain('pr0xy-pass');
  });
});

describe('OPS_PORT', () => {
  it('is unset by default: the operator endpoints stay on PORT', () => {
    expect(loadConfig({}).opsPort).toBeUndefined();
  });

  it('reads a port, 0 for any free one', () => {
    expect(loadConfig({ OPS_PORT: '9090' }).opsPort).toBe(9090);
    expect(loadConfig({ PORT: '0', OPS_PORT: '0' }).opsPort).toBe(0);
  });

  it('refuses a port that is not one, or that is PORT, naming OPS_PORT', () => {
    expect(refusal({ OPS_PORT: '70000' })).toContain('OPS_PORT: expected an integer from 0 to 65535');
    expect(refusal({ OPS_PORT: 'ops' })).toContain('OPS_PORT:');
    expect(refusal({ PORT: '4000', OPS_PORT: '4000' })).toContain('OPS_PORT: must not be PORT');
    expect(refusal({ OPS_PORT: '4000' })).toContain('OPS_PORT: must not be PORT');
  });
});
