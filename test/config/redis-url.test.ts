import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index';
import { configRefusal } from '../support/config';

const KEY = randomBytes(32).toString('base64');
const PASSWORD = 'n0t-in-any-message';

const refusal = (env: NodeJS.ProcessEnv): string => configRefusal({ CREDENTIAL_KEY: KEY, ...env }).message;

describe('REDIS_URL and CACHE_REDIS_URL topologies', () => {
  it('reads redis:// and rediss:// as one server, kept as written for ioredis', () => {
    expect(loadConfig({ REDIS_URL: 'rediss://:secret@redis.example.com:6380/2', CREDENTIAL_KEY: KEY }).redis).toEqual({
      topology: 'single',
      url: 'rediss://:secret@redis.example.com:6380/2',
    });
  });

  it('reads a Sentinel URL: the sentinels, the master name, the database and the data nodes\' credentials', () => {
    const config = loadConfig({ REDIS_URL: `redis+sentinel://gateway:${encodeURIComponent('p@ss/word')}@s1:26379,10.0.0.2:26380,[::1]:26381/sessions/3`, CREDENTIAL_KEY: KEY });
    expect(config.redis).toEqual({
      topology: 'sentinel',
      sentinels: [{ host: 's1', port: 26379 }, { host: '10.0.0.2', port: 26380 }, { host: '::1', port: 26381 }],
      masterName: 'sessions',
      db: 3,
      username: 'gateway',
      password: 'p@ss/word',
    });
    expect(config.cacheRedis).toEqual(config.redis);
  });

  it('defaults a Sentinel URL to database 0 and a sentinel without a port to 26379', () => {
    expect(loadConfig({ REDIS_URL: 'redis+sentinel://s1,s2:26380/mymaster', CREDENTIAL_KEY: KEY }).redis).toEqual({
      topology: 'sentinel',
      sentinels: [{ host: 's1', port: 26379 }, { host: 's2', port: 26380 }],
      masterName: 'mymaster',
      db: 0,
    });
  });

  it('reads a Cluster URL as its seed nodes, with a password only', () => {
    const config = loadConfig({ CACHE_REDIS_URL: `redis+cluster://:${PASSWORD}@n1:7000,n2:7001,n3`, CREDENTIAL_KEY: KEY });
    expect(config.cacheRedis).toEqual({
      topology: 'cluster',
      nodes: [{ host: 'n1', port: 7000 }, { host: 'n2', port: 7001 }, { host: 'n3', port: 6379 }],
      password: PASSWORD,
    });
    expect(config.redis).toBeUndefined();
  });

  it('reads ?tls=true on a Sentinel or Cluster URL as TLS, and ?tls=false or none as plain', () => {
    expect(loadConfig({ REDIS_URL: `redis+sentinel://:${PASSWORD}@s1,s2/sessions/2?tls=true`, CREDENTIAL_KEY: KEY }).redis).toEqual({
      topology: 'sentinel',
      sentinels: [{ host: 's1', port: 26379 }, { host: 's2', port: 26379 }],
      masterName: 'sessions',
      db: 2,
      password: PASSWORD,
      tls: true,
    });
    expect(loadConfig({ CACHE_REDIS_URL: 'redis+cluster://n1:7000?tls=true', CREDENTIAL_KEY: KEY }).cacheRedis).toEqual({ topology: 'cluster', nodes: [{ host: 'n1', port: 7000 }], tls: true });
    expect(loadConfig({ CACHE_REDIS_URL: 'redis+cluster://n1:7000?tls=false', CREDENTIAL_KEY: KEY }).cacheRedis).toEqual({ topology: 'cluster', nodes: [{ host: 'n1', port: 7000 }] });
  });

  it('still requires CREDENTIAL_KEY beside a Sentinel or Cluster URL', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis+cluster://n1:7000' })).toThrow(/CREDENTIAL_KEY: is required with REDIS_URL/);
  });

  const malformed: [string, string, RegExp][] = [
    ['a Sentinel URL without a master name', `redis+sentinel://user:${PASSWORD}@s1:26379,s2:26379`, /master name/],
    ['a Sentinel URL with a database that is not a number', `redis+sentinel://:${PASSWORD}@s1:26379/mymaster/one`, /database a number/],
    ['a Sentinel URL with a path past the database', `redis+sentinel://:${PASSWORD}@s1:26379/mymaster/1/2`, /master name/],
    ['a Cluster URL with a database', `redis+cluster://:${PASSWORD}@n1:7000,n2:7001/1`, /no path/],
    ['a port out of range', `redis+cluster://:${PASSWORD}@n1:7000,n2:70000`, /port of host 2/],
    ['an empty host in the list', `redis+cluster://:${PASSWORD}@n1:7000,,n2:7001`, /host:port/],
    ['no host at all', `redis+sentinel://:${PASSWORD}@/mymaster`, /host:port/],
    ['a host that is not a host', `redis+cluster://:${PASSWORD}@n1:7000,n_2!:7001`, /host 2 is not host:port/],
    ['an unencoded @ in the password', `redis+cluster://user:${PASSWORD}@x@n1:7000`, /unencoded @/],
    ['a password that is not percent-encoded correctly', `redis+sentinel://user:${PASSWORD}%zz@s1/mymaster`, /password is not percent-encoded/],
    ['a query string other than ?tls=true', `redis+cluster://:${PASSWORD}@n1:7000?tls=yes`, /no query but \?tls=true/],
    ['a fragment', `redis+sentinel://:${PASSWORD}@s1/mymaster#x`, /no fragment/],
    ['an unknown scheme', `redis+proxy://:${PASSWORD}@n1:7000`, /unknown scheme/],
    ['no URL at all', `${PASSWORD}`, /not a URL/],
  ];
  for (const [what, url, problem] of malformed) {
    it(`stops the start on ${what}, naming the variable and never the password`, () => {
      for (const variable of ['REDIS_URL', 'CACHE_REDIS_URL']) {
        const message = refusal({ [variable]: url });
        expect(message).toContain(`${variable}: `);
        expect(message).toMatch(problem);
        expect(message).not.toContain(PASSWORD);
      }
    });
  }
});
