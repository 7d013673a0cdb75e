/**
 * deploy/compose.ha.yaml, checked without a Docker engine: the file parses and wires what its
 * header says, and the session group it describes really works: its servers' and sentinels'
 * configurations (taken from the file, service names mapped to local ports, the down-after time
 * shortened) run as local redis-server processes, the gateway's client finds the primary through
 * the sentinels of REDIS_URL, the sentinels promote the replica when the primary is killed, the
 * promotion is written to the replica's configuration file, and the old primary, started again
 * from its own file, rejoins as a replica. Every server requires the password each service feeds
 * it on its standard input (its `<<AUTH` here-document), as the gateway's, the replica's and the
 * sentinels' connections give it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { hereDocument, interpolate } from '../support/compose';
import { freePort } from '../support/launcher';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config';
import { createRedisClient, waitForReady, type RedisClient } from '../../src/redis';
import { createRedisSessionStore } from '../../src/session/redis-session-store';

const DEPLOY = path.resolve(__dirname, '../../deploy');
const KEY = Buffer.alloc(32, 7).toString('base64');
const PASSWORD = 'b'.repeat(48);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
}
const compose = parseYaml(readFileSync(path.join(DEPLOY, 'compose.ha.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const { services } = compose;
const SESSION_SERVERS = ['redis-sessions-1', 'redis-sessions-2'];
const SENTINELS = ['sentinel-1', 'sentinel-2', 'sentinel-3'];

/** The configuration a service writes at its first start (its `<<'CONF'` here-document). */
function configOf(name: string): string {
  const text = hereDocument(services[name]?.command?.[2] ?? '', 'CONF');
  if (text === undefined) throw new Error(`${name} writes no configuration`);
  return text;
}

/** What a service feeds its server on stdin at every start (`<<AUTH`), the secret read as PASSWORD. */
function authOf(name: string): string {
  const text = hereDocument(services[name]?.command?.[2] ?? '', 'AUTH', PASSWORD);
  if (text === undefined) throw new Error(`${name} is given no password`);
  return text;
}

/** A gateway's variable as compose gives it, with REDIS_PASSWORD=PASSWORD. */
const gatewayVariable = (name: string, variable: string) => interpolate(services[name]?.environment?.[variable] ?? '', { REDIS_PASSWORD: PASSWORD });

describe('deploy/compose.ha.yaml', () => {
  it('has two gateway replicas on the Sentinel group for sessions and on an evicting Redis for caches', () => {
    expect(Object.keys(services).sort()).toEqual(['emulator-production', 'emulator-sandbox', 'gateway-1', 'gateway-2', 'nginx', 'redis-cache', ...SESSION_SERVERS, ...SENTINELS].sort());
    for (const name of ['gateway-1', 'gateway-2']) {
      const env = Object.fromEntries(Object.keys(services[name]?.environment ?? {}).map((variable) => [variable, gatewayVariable(name, variable)]));
      for (const variable of Object.keys(env)) expect(CONFIG_VARIABLES, variable).toContain(variable);
      const config = loadConfig({ ...env, CREDENTIAL_KEY: KEY, OPS_TOKEN: 'x'.repeat(32), COOKIE_SECURE: 'true' });
      expect(config.redis).toEqual({ topology: 'sentinel', sentinels: SENTINELS.map((host) => ({ host, port: 26379 })), masterName: 'sessions', db: 0, password: PASSWORD });
      expect(config.cacheRedis).toEqual({ topology: 'single', url: `redis://:${PASSWORD}@redis-cache:6379` });
      expect(Object.keys(services[name]?.depends_on ?? {})).toEqual(expect.arrayContaining([...SENTINELS, 'redis-cache']));
    }
    expect(services['redis-cache']?.command?.join(' ')).toMatch(/--maxmemory \d+mb .*--maxmemory-policy allkeys-lru .*--appendonly no/);
  });

  it('gives every Redis server the password from the redis_password secret on its standard input, and the replica and the sentinels the same to authenticate with', () => {
    const secrets = (compose as { secrets?: Record<string, { environment?: string }> }).secrets;
    expect(secrets?.redis_password).toEqual({ environment: 'REDIS_PASSWORD' });
    for (const name of [...SESSION_SERVERS, 'redis-cache']) {
      expect(authOf(name)).toMatch(new RegExp(`^requirepass "${PASSWORD}"$`, 'm'));
      expect((services[name] as { secrets?: string[] }).secrets).toEqual(['redis_password']);
      // Read from stdin (`-` last), so the password is on no command line.
      expect(services[name]?.command?.[2]).toMatch(/redis-server .* - <<AUTH$/m);
      expect(services[name]?.healthcheck?.test.join(' ')).toContain('REDISCLI_AUTH=');
    }
    for (const name of SESSION_SERVERS) expect(authOf(name)).toMatch(new RegExp(`^masterauth "${PASSWORD}"$`, 'm'));
    for (const name of SENTINELS) {
      expect(authOf(name)).toBe(`sentinel auth-pass sessions "${PASSWORD}"`);
      expect((services[name] as { secrets?: string[] }).secrets).toEqual(['redis_password']);
    }
  });

  it('keeps sessions on servers that never evict and append every write to a fsynced AOF, each in its own volume', () => {
    for (const name of SESSION_SERVERS) {
      const config = configOf(name);
      expect(config).toMatch(/^maxmemory-policy noeviction$/m);
      expect(config).toMatch(/^appendonly yes$/m);
      expect(config).toMatch(/^appendfsync everysec$/m);
      expect(config).toMatch(/^dir \/data$/m);
      expect(config).toContain(`replica-announce-ip ${name}`);
      expect(services[name]?.volumes).toEqual([`${name}:/data`]);
      // Written once: Sentinel's rewrites of the file survive a restart.
      expect(services[name]?.command?.[2]).toMatch(/^\[ -f \/data\/redis\.conf \] \|\| cat > \/data\/redis\.conf <<'CONF'$/m);
      expect(services[name]?.command?.[2]).toMatch(/^exec docker-entrypoint\.sh redis-server \/data\/redis\.conf - <<AUTH$/m);
    }
    expect(configOf('redis-sessions-2')).toMatch(/^replicaof redis-sessions-1 6379$/m);
    expect(configOf('redis-sessions-1')).not.toContain('replicaof');
    for (const name of [...SESSION_SERVERS, ...SENTINELS]) expect(compose.volumes).toHaveProperty([name]);
  });

  it('has three sentinels watching the primary by name with a quorum of two', () => {
    for (const name of SENTINELS) {
      const config = configOf(name);
      expect(config).toMatch(/^sentinel monitor sessions redis-sessions-1 6379 2$/m);
      // Names are resolved only with resolve-hostnames, which must come before the monitor line.
      expect(config.indexOf('sentinel resolve-hostnames yes')).toBeGreaterThanOrEqual(0);
      expect(config.indexOf('sentinel resolve-hostnames yes')).toBeLessThan(config.indexOf('sentinel monitor'));
      expect(config).toMatch(/^sentinel announce-hostnames yes$/m);
      expect(services[name]?.command?.[2]).toMatch(/^exec docker-entrypoint\.sh redis-server \/data\/sentinel\.conf --sentinel - <<AUTH$/m);
      expect(services[name]?.volumes).toEqual([`${name}:/data`]);
      expect(services[name]?.healthcheck?.test.join(' ')).toContain('get-master-addr-by-name sessions');
    }
  });
});

describe('the session group of compose.ha.yaml, run locally', () => {
  const processes = new Map<string, ChildProcess>();
  const dirs = new Map<string, string>();
  const ports = new Map<string, number>();
  const clients: (RedisClient | Redis)[] = [];

  /** The service's configuration with service names and ports mapped to this machine. */
  const localConfig = (name: string) => {
    const port = ports.get(name) ?? 0;
    const mapped = configOf(name)
      .replace(/(redis-sessions-\d)( 6379)?/g, (_all, service: string, withPort?: string) => (withPort ? `127.0.0.1 ${ports.get(service) ?? 0}` : '127.0.0.1'))
      .replace(/^dir \/data$/m, `dir ${dirs.get(name) ?? ''}`)
      .replace(/^port \d+$/m, '')
      // Failover within seconds here (a split vote is retried after twice the failover timeout);
      // the file's times are for real networks.
      .replace(/^(sentinel down-after-milliseconds sessions) \d+$/m, '$1 1000')
      .replace(/^(sentinel failover-timeout sessions) \d+$/m, '$1 3000');
    return `port ${port}\nbind 127.0.0.1\nlogfile ${path.join(dirs.get(name) ?? '', 'log')}\n${mapped}\n`;
  };

  const isSentinel = (name: string) => SENTINELS.includes(name);

  const start = async (name: string, sentinel: boolean) => {
    const dir = dirs.get(name) ?? mkdtempSync(path.join(tmpdir(), `sgw-${name}-`));
    dirs.set(name, dir);
    const file = path.join(dir, sentinel ? 'sentinel.conf' : 'redis.conf');
    // Written once, as the service does: a restart keeps what Sentinel rewrote.
    try {
      readFileSync(file);
    } catch {
      writeFileSync(file, localConfig(name));
    }
    // As the service starts it: the password on stdin, `-` last.
    const child = spawn('redis-server', [file, ...(sentinel ? ['--sentinel'] : []), '-'], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin?.end(`${authOf(name)}\n`);
    processes.set(name, child);
    await until(`${name} answers`, async () => (await probe(name, (redis) => redis.ping())) === 'PONG');
  };

  const probe = async <T,>(name: string, command: (redis: Redis) => Promise<T>): Promise<T> => {
    const redis = new Redis({ port: ports.get(name) ?? 0, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 500, ...(isSentinel(name) ? {} : { password: PASSWORD }) });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return await command(redis);
    } finally {
      redis.disconnect();
    }
  };

  const until = async (what: string, check: () => Promise<boolean>, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await check().catch(() => false)) return;
      await sleep(100);
    }
    throw new Error(`${what}: not within ${ms} ms`);
  };

  const kill = async (name: string) => {
    const child = processes.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  afterAll(async () => {
    for (const client of clients) client.disconnect();
    for (const name of processes.keys()) await kill(name);
    // KEEP=1 leaves the folders (configurations and logs) for a look after a failure.
    for (const dir of dirs.values()) if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
  });

  it('serves sessions through the sentinels, fails over to the replica, and takes the old primary back as a replica', async () => {
    for (const name of [...SESSION_SERVERS, ...SENTINELS]) ports.set(name, await freePort());
    for (const name of SESSION_SERVERS) await start(name, false);
    for (const name of SENTINELS) await start(name, true);
    await until('the replica in sync', async () => /master_link_status:up/.test(await probe('redis-sessions-2', (redis) => redis.info('replication'))));
    // Each sentinel has found the others (their hello messages) and the replica: a quorum can form.
    for (const name of SENTINELS) {
      await until(`${name} knowing the group`, async () => {
        const [others, replicas] = await probe(name, (sentinel) => Promise.all([sentinel.call('SENTINEL', 'SENTINELS', 'sessions'), sentinel.call('SENTINEL', 'REPLICAS', 'sessions')]));
        return Array.isArray(others) && others.length === 2 && Array.isArray(replicas) && replicas.length === 1;
      });
    }

    // The password guards the data: a connection without it is refused.
    for (const name of SESSION_SERVERS) {
      const anonymous = new Redis({ port: ports.get(name) ?? 0, host: '127.0.0.1', enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
      anonymous.on('error', () => undefined);
      clients.push(anonymous);
      await expect(anonymous.get('sgw:session:compose-ha')).rejects.toThrow(/NOAUTH/);
    }

    const url = gatewayVariable('gateway-1', 'REDIS_URL').replace(/(sentinel-\d):26379/g, (_all, name: string) => `127.0.0.1:${ports.get(name) ?? 0}`);
    const target = loadConfig({ REDIS_URL: url, CREDENTIAL_KEY: KEY }).redis;
    if (!target) throw new Error('no REDIS_URL');
    const redis = createRedisClient({ target });
    clients.push(redis);
    expect(await waitForReady(redis, 5_000)).toBe(true);
    const store = createRedisSessionStore(redis);
    const now = Date.now();
    await store.create('sgw:session:compose-ha', { uid: 'u@example.com', environment: 'sandbox', credential: 'sealed', createdAt: now, absoluteExpiresAt: now + 600_000 }, 600_000);
    expect(await redis.wait(1, 2_000)).toBe(1);

    await kill('redis-sessions-1');
    // The file's timings: down after 5 s, and an election whose votes split is tried again after
    // twice the failover timeout (20 s), which a loaded machine sees now and then: 60 s covers one.
    await until('the session served by the promoted replica', async () => (await store.touch('sgw:session:compose-ha', 600_000, Date.now())).status === 'active', 60_000);
    expect(await probe('redis-sessions-2', (server) => server.role())).toContain('master');
    // The promotion is in the replica's file, so a restart keeps it primary.
    expect(readFileSync(path.join(dirs.get('redis-sessions-2') ?? '', 'redis.conf'), 'utf8')).not.toMatch(/^replicaof /m);

    await start('redis-sessions-1', false);
    await until('the old primary turned into a replica', async () => (await probe('redis-sessions-1', (server) => server.role()))[0] === 'slave', 30_000);
    await until('its file rewritten', () => Promise.resolve(/^replicaof 127\.0\.0\.1 \d+$/m.test(readFileSync(path.join(dirs.get('redis-sessions-1') ?? '', 'redis.conf'), 'utf8'))));
  }, 120_000);
});
