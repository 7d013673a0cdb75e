/**
 * deploy/compose.yaml, checked as far as this machine can without a Docker engine: it parses and
 * wires what the README says (replicas, Redis policies and passwords, emulators, Jaeger), its
 * Redis services' commands run here as compose runs them, its mounts exist, and nginx accepts its
 * configuration (`nginx -t`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CONFIG_VARIABLES } from '../../src/config';
import { interpolate } from '../support/compose';
import { freePort } from '../support/launcher';

const ROOT = path.resolve(__dirname, '../..');
const DEPLOY = path.join(ROOT, 'deploy');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface ComposeFile {
  services: Record<string, ComposeService>;
  secrets?: Record<string, { environment?: string; file?: string }>;
}

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, unknown> | string[];
  secrets?: string[];
}

describe('deploy/compose.yaml', () => {
  const compose = parseYaml(readFileSync(path.join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as ComposeFile;
  const services = compose.services;
  const REDIS_PASSWORD = 'c'.repeat(48);

  it('has two gateway replicas behind nginx, a session Redis that never evicts, an evicting cache Redis, both emulators, Prometheus, Grafana and Jaeger', () => {
    expect(Object.keys(services).sort()).toEqual(['emulator-production', 'emulator-sandbox', 'gateway-1', 'gateway-2', 'grafana', 'jaeger', 'nginx', 'prometheus', 'redis-cache', 'redis-sessions']);
    for (const name of ['gateway-1', 'gateway-2']) {
      const gateway = services[name]!;
      expect(gateway.build?.context).toBe('..');
      expect(existsSync(path.resolve(DEPLOY, gateway.build?.context ?? '', gateway.build?.dockerfile ?? ''))).toBe(true);
      const env = gateway.environment ?? {};
      expect(interpolate(env.REDIS_URL ?? '', { REDIS_PASSWORD })).toBe(`redis://:${REDIS_PASSWORD}@redis-sessions:6379`);
      expect(interpolate(env.CACHE_REDIS_URL ?? '', { REDIS_PASSWORD })).toBe(`redis://:${REDIS_PASSWORD}@redis-cache:6379`);
      expect(env.REDIS_URL).toMatch(/\$\{REDIS_PASSWORD:\?/);
      expect(env.UPSTREAM_SANDBOX_URL).toBe('http://emulator-sandbox:4010');
      expect(env.UPSTREAM_PRODUCTION_URL).toBe('http://emulator-production:4010');
      expect(env.TRUST_PROXY).toBe('1');
      // Traces go to the Jaeger service's OTLP/HTTP receiver.
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://jaeger:4318');
      expect(env.CREDENTIAL_KEY).toMatch(/^\$\{CREDENTIAL_KEY:\?/);
      // Every variable set is one the gateway reads (a typo would be ignored silently).
      for (const variable of Object.keys(env)) expect(CONFIG_VARIABLES, variable).toContain(variable);
    }
    expect(services['redis-sessions']?.command?.join(' ')).toContain('--maxmemory-policy noeviction');
    expect(services['redis-cache']?.command?.join(' ')).toMatch(/--maxmemory \d+mb .*--maxmemory-policy allkeys-lru/);
    expect(services['emulator-sandbox']?.environment?.EMULATOR_ENVIRONMENT).toBe('sandbox');
    expect(services['emulator-production']?.environment?.EMULATOR_ENVIRONMENT).toBe('production');
    expect(services['emulator-sandbox']?.environment?.EMULATOR_HOST).toBe('0.0.0.0');
    expect(services.jaeger?.environment?.COLLECTOR_OTLP_ENABLED).toBe('true');
  });

  describe('each Redis service, its command run here as compose runs it', () => {
    const children: ChildProcess[] = [];
    const dir = mkdtempSync(path.join(tmpdir(), 'compose-redis-'));
    const secret = path.join(dir, 'redis_password');
    writeFileSync(secret, REDIS_PASSWORD);
    /** compose's `$$` is the shell's `$`; the secret is mounted here at /run/secrets/; no image entrypoint. */
    const local = (script: string, port: number) => script.replaceAll('$$', '$').replaceAll('/run/secrets/redis_password', secret).replace('docker-entrypoint.sh ', '').replace('redis-server ', `redis-server --port ${port} --bind 127.0.0.1 --dir ${dir} `).replace('redis-cli ', `redis-cli -p ${port} `);
    afterAll(() => {
      for (const child of children) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });

    it.each(['redis-sessions', 'redis-cache'])('%s takes REDIS_PASSWORD from its secret: a client without it is refused, the gateway\'s URL and the health check get in', async (name) => {
      const service = services[name] ?? {};
      expect(service.secrets).toEqual(['redis_password']);
      expect(compose.secrets?.redis_password).toEqual({ environment: 'REDIS_PASSWORD' });
      const port = await freePort();
      const [shell = '', flag = '', script = ''] = service.command ?? [];
      expect([shell, flag]).toEqual(['sh', '-c']);
      // The password is read from the secret by the shell, so no command line or variable holds it.
      expect(script).not.toContain(REDIS_PASSWORD);
      children.push(spawn(shell, [flag, local(script, port)], { stdio: 'ignore' }));
      const variable = name === 'redis-sessions' ? 'REDIS_URL' : 'CACHE_REDIS_URL';
      const url = interpolate(services['gateway-1']?.environment?.[variable] ?? '', { REDIS_PASSWORD }).replace(`${name}:6379`, `127.0.0.1:${port}`);
      const health = () => spawnSync('sh', ['-c', local(service.healthcheck?.test.slice(1).join(' ') ?? '', port)]).status;
      const deadline = Date.now() + 10_000;
      while (health() !== 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(service.healthcheck?.test[0]).toBe('CMD-SHELL');
      expect(health()).toBe(0);
      const gateway = new Redis(url, { maxRetriesPerRequest: 0 });
      const anonymous = new Redis({ port, host: '127.0.0.1', enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
      anonymous.on('error', () => undefined);
      try {
        expect(await gateway.ping()).toBe('PONG');
        await expect(anonymous.get('x')).rejects.toThrow(/NOAUTH/);
      } finally {
        gateway.disconnect();
        anonymous.disconnect();
      }
      // Without the password the health check fails (redis-cli alone would exit 0 on NOAUTH).
      writeFileSync(secret, 'wrong');
      try {
        expect(health()).not.toBe(0);
      } finally {
        writeFileSync(secret, REDIS_PASSWORD);
      }
    });
  });

  it('mounts files that exist, and Prometheus and nginx name the gateway services', () => {
    for (const service of Object.values(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0] ?? '';
        if (source.startsWith('.')) expect(existsSync(path.resolve(DEPLOY, source)), volume).toBe(true);
      }
    }
    const prometheus = parseYaml(read('deploy/prometheus/prometheus.yml')) as { scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[] };
    const job = prometheus.scrape_configs.find((config) => config.job_name === 'statement-gateway');
    expect(job?.static_configs.flatMap((config) => config.targets).sort()).toEqual(['gateway-1:4000', 'gateway-2:4000']);
    const nginx = read('deploy/nginx/nginx.conf');
    // The browser's Host with its port reaches the gateway (its CSRF check compares origins), and
    // the gateway's own 502/503 answers are not retried on the other replica.
    expect(nginx).toMatch(/proxy_set_header Host \$http_host;/);
    expect(nginx).toMatch(/proxy_next_upstream error timeout;/);
    // Its own request id for each request (the gateway keeps it within TRUST_PROXY), and its own
    // 413 for bodies over client_max_body_size as the gateway's JSON error.
    expect(nginx).toMatch(/proxy_set_header X-Request-Id \$request_id;/);
    expect(nginx).toMatch(/error_page 413 @payload_too_large;[\s\S]*return 413 '\{"errors":\[\{[^']*"code":"PAYLOAD_TOO_LARGE"/);
    expect([...nginx.matchAll(/^\s*server\s+([\w-]+:\d+)/gm)].map((match) => match[1]).sort()).toEqual(['gateway-1:4000', 'gateway-2:4000']);
    // Slow clients are cut at the proxy too (the gateway's headers deadline is 10 s), and one
    // address cannot hold every connection, its refusal the gateway's JSON RATE_LIMITED.
    expect(nginx).toMatch(/^\s*client_header_timeout 10s;$/m);
    expect(nginx).toMatch(/^\s*client_body_timeout \d+s;$/m);
    const zone = /^\s*limit_conn_zone \$binary_remote_addr zone=([\w-]+):\d+m;$/m.exec(nginx)?.[1];
    expect(zone).toBeDefined();
    expect(nginx).toMatch(new RegExp(`^\\s*limit_conn ${zone ?? ''} \\d+;$`, 'm'));
    expect(nginx).toMatch(/error_page 429 @too_many_connections;[\s\S]*return 429 '\{"errors":\[\{[^']*"code":"RATE_LIMITED"/);
    expect(services.grafana?.volumes).toContain('./grafana/statement-gateway.json:/var/lib/grafana/dashboards/statement-gateway.json:ro');
  });

  it('has an nginx configuration that nginx -t accepts', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nginx-'));
    // The service names only resolve inside compose's network, and /dev/stdout is the container's
    // log stream (here the test's stdout is a socket nginx cannot open).
    const config = read('deploy/nginx/nginx.conf')
      .replace(/gateway-[12]:4000/g, (name) => (name.startsWith('gateway-1') ? '127.0.0.1:4000' : '127.0.0.2:4000'))
      .replace('/dev/stdout', path.join(dir, 'access.log'));
    const file = path.join(dir, 'nginx.conf');
    expect(config).not.toContain('gateway-');
    writeFileSync(file, config);
    // nginx -t reports on stderr; a failure throws with that report.
    const result = spawnSync('nginx', ['-t', '-c', file, '-p', dir], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'] });
    expect(result.error, 'nginx must be installed (apt-get install nginx-light)').toBeUndefined();
    expect(result.stderr).toContain('test is successful');
    expect(result.status, result.stderr).toBe(0);
  });
});
