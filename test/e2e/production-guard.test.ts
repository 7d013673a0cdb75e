/**
 * NODE_ENV=production refuses what is only safe on a developer's machine (src/config). Two things
 * the unit tests of loadConfig cannot show: the real process stops before it listens, naming the
 * variable, and the shipped deployment (the Dockerfile's environment plus compose's) passes the
 * guard, so `docker compose up` keeps starting.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config';
import { interpolate } from '../support/compose';
import { useEmulator } from '../support/emulator';
import { runToExit, startTestGateway, TEST_CREDENTIAL_KEY, TEST_REDIS_URL } from '../support/gateway';

const ROOT = path.resolve(__dirname, '../..');

/** The `ENV` of the Dockerfile's last (runtime) stage. */
function dockerfileEnvironment(): Record<string, string> {
  const stages = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').split(/^FROM /m);
  const runtime = (stages.at(-1) ?? '').replace(/\\\n/g, ' ');
  const env: Record<string, string> = {};
  for (const line of runtime.split('\n').filter((entry) => entry.startsWith('ENV '))) {
    for (const match of line.slice(4).matchAll(/([A-Z_]+)=(\S+)/g)) env[match[1] ?? ''] = match[2] ?? '';
  }
  return env;
}

describe('NODE_ENV=production', () => {
  it('stops the process before it listens when no upstream URL is set, naming the variable and not the demo account', async () => {
    const { code, output } = await runToExit({ NODE_ENV: 'production' });
    expect(code).toBe(1);
    expect(output).toMatch(/UPSTREAM_SANDBOX_URL: is required with NODE_ENV=production/);
    expect(output).toMatch(/REDIS_URL: is required with NODE_ENV=production/);
    expect(output).not.toContain('demo-password');
    expect(output).not.toContain('Statement gateway on');
  });

  it('stops the process on NODE_ENV=prod, naming NODE_ENV, instead of starting with every production guard off', async () => {
    const { code, output } = await runToExit({ NODE_ENV: 'prod', HOST: '0.0.0.0' });
    expect(code).toBe(1);
    expect(output).toMatch(/NODE_ENV: expected development, test or production/);
    expect(output).not.toContain('Statement gateway on');
  });

  it.each(['compose.yaml', 'compose.ha.yaml'])('accepts the environment that the Dockerfile and deploy/%s give each replica, plain transport only by ALLOW_INSECURE_TRANSPORT, set with a comment saying why', (file) => {
    const text = readFileSync(path.join(ROOT, 'deploy', file), 'utf8');
    const compose = parseYaml(text, { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    const operator = { CREDENTIAL_KEY: Buffer.alloc(32, 7).toString('base64'), OPS_TOKEN: 'an-ops-token-of-48-hex-characters-0000000000000', REDIS_PASSWORD: 'a'.repeat(48) };
    const image = dockerfileEnvironment();
    expect(image).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
    expect(text).toMatch(/^ *# .*private network.*\n(?: *#.*\n)* *ALLOW_INSECURE_TRANSPORT: "true"$/m);
    for (const name of ['gateway-1', 'gateway-2']) {
      const service = compose.services[name]?.environment ?? {};
      const env = { ...image, ...Object.fromEntries(Object.entries(service).map(([key, value]) => [key, interpolate(String(value), operator)])) };
      const config = loadConfig(env);
      expect(config.production).toBe(true);
      expect(config.cookieSecure).toBe(true);
      expect(config.insecureTransport).toEqual(['UPSTREAM_SANDBOX_URL', 'UPSTREAM_PRODUCTION_URL', 'REDIS_URL', 'CACHE_REDIS_URL']);
      // The guard holds there too: without the deliberate way out, the same environment is refused.
      const { ALLOW_INSECURE_TRANSPORT: _allowed, ...guarded } = env;
      expect(() => loadConfig(guarded)).toThrow(/UPSTREAM_SANDBOX_URL: is not https:\/\/[\s\S]*REDIS_URL: has no TLS/);
    }
  });
});

describe('ALLOW_INSECURE_TRANSPORT=true with NODE_ENV=production', () => {
  const sandbox = useEmulator('sandbox');
  const production = useEmulator('production');

  it('starts over http:// upstreams and Redis without TLS, and logs it once at start as a config.warning naming each', async () => {
    const gateway = await startTestGateway({
      NODE_ENV: 'production', ALLOW_INSECURE_TRANSPORT: 'true',
      UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url, REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY,
    });
    try {
      expect((await fetch(`${gateway.url}/healthcheck`)).status).toBe(200);
      const warnings = gateway.output().split('\n').filter((line) => line.includes('"config.warning"')).map((line) => JSON.parse(line) as { level: string; variable: string; message: string });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ variable: 'ALLOW_INSECURE_TRANSPORT', level: 'warn' });
      expect(warnings[0]?.message).toContain('UPSTREAM_SANDBOX_URL, UPSTREAM_PRODUCTION_URL, REDIS_URL');
    } finally {
      await gateway.stop();
    }
  });
});
