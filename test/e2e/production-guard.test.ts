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
import { runToExit } from '../support/gateway';

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

/** compose's interpolation: `${X:?message}` takes what an operator must set, `${X:-default}` its default. */
function interpolate(value: string, operator: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+)(?::([?-])([^}]*))?\}/g, (_all, name: string, kind?: string, rest?: string) => operator[name] ?? (kind === '-' ? (rest ?? '') : ''));
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

  it.each(['compose.yaml', 'compose.ha.yaml'])('accepts the environment that the Dockerfile and deploy/%s give each replica', (file) => {
    const compose = parseYaml(readFileSync(path.join(ROOT, 'deploy', file), 'utf8'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    const operator = { CREDENTIAL_KEY: Buffer.alloc(32, 7).toString('base64'), OPS_TOKEN: 'an-ops-token-of-48-hex-characters-0000000000000' };
    const image = dockerfileEnvironment();
    expect(image).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
    for (const name of ['gateway-1', 'gateway-2']) {
      const service = compose.services[name]?.environment ?? {};
      const env = { ...image, ...Object.fromEntries(Object.entries(service).map(([key, value]) => [key, interpolate(String(value), operator)])) };
      const config = loadConfig(env);
      expect(config.production).toBe(true);
      expect(config.cookieSecure).toBe(true);
    }
  });
});
