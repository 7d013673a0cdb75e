/**
 * `npm start` from one checkout, several at once (replicas side by side): the Mesh build is made
 * once, under a lock, and swapped in whole (scripts/ensure-mesh.ts), where three `mesh build`s in
 * one `.mesh/` used to crash each other with `ENOENT rmdir .mesh`. The checkout is a copy in a
 * temporary folder (code copied, node_modules linked) with no `.mesh/` yet, so the suite's own
 * build is never touched while other files run gateways from it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionRefused } from '../support/raw-http';

const ROOT = path.resolve(__dirname, '..', '..');
/**
 * How long one `npm start` may take to log its start: the Mesh build and three gateway starts
 * share two cores with the rest of the suite (a loaded CI run took over 40 s).
 */
const START_TIMEOUT_MS = 100_000;
const COPIED = ['.meshrc.ts', 'sources', 'additional-resolvers', 'src', 'emulator', 'scripts/ensure-mesh.ts', 'package.json', 'package-lock.json', 'tsconfig.json'];

interface Started {
  readonly url: string;
  readonly output: () => string;
  readonly stop: () => Promise<void>;
  /** SIGTERM to the npm process alone (as a supervisor that knows only its child sends it): npm's exit code. */
  readonly terminateNpm: () => Promise<number | null>;
  /** Whether any process of the group npm leads is still there. */
  readonly groupAlive: () => boolean;
}

/** `npm start` in `cwd`, as a process group (npm, sh, tsx, node) so that it stops whole. */
async function npmStart(cwd: string): Promise<Started> {
  const child = spawn('npm', ['start'], {
    cwd,
    detached: true,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', LOG_LEVEL: 'info', NODE_ENV: 'test', SHUTDOWN_DELAY: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    try {
      process.kill(-(child.pid ?? 0), 'SIGTERM');
    } catch {
      // already gone
    }
    await exited;
  };
  const groupAlive = () => {
    try {
      process.kill(-(child.pid ?? 0), 0);
      return true;
    } catch {
      return false;
    }
  };
  const terminateNpm = () => {
    child.kill('SIGTERM');
    return exited;
  };
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Never leave a gateway running after the test gave up on it.
      void stop();
      reject(new Error(`npm start did not start in time:\n${output}`));
    }, START_TIMEOUT_MS);
    const check = () => {
      const match = /"event":"gateway.started","url":"([^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`npm start exited before starting:\n${output}`));
    });
  });
  return { url, output: () => output, stop, terminateNpm, groupAlive };
}

function ensure(cwd: string): string {
  // tsx's loader in this one process (tsx's CLI would start Node again in a child).
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ensure-mesh.ts'], { cwd, encoding: 'utf8', timeout: 80_000 });
  expect(run.status, run.stderr).toBe(0);
  return run.stderr;
}

describe('npm start, three at once from one checkout', () => {
  let checkout = '';
  const started: Started[] = [];
  beforeAll(() => {
    checkout = mkdtempSync(path.join(os.tmpdir(), 'sgw-checkout-'));
    for (const entry of COPIED) {
      mkdirSync(path.dirname(path.join(checkout, entry)), { recursive: true });
      cpSync(path.join(ROOT, entry), path.join(checkout, entry), { recursive: true });
    }
    symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(checkout, 'node_modules'));
  });
  afterAll(async () => {
    await Promise.all(started.map((gateway) => gateway.stop()));
    if (checkout) rmSync(checkout, { recursive: true, force: true });
  });

  it('builds the Mesh artifacts once, and all three start and answer /healthcheck', async () => {
    // Staggered by 0.7 s: with a plain `mesh build`, one start then empties `.mesh/` while another
    // writes it (the crash seen side by side); started in the same instant they often get away with it.
    const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)).then(() => npmStart(checkout));
    const results = await Promise.allSettled([later(0), later(700), later(1_400)]);
    for (const result of results) if (result.status === 'fulfilled') started.push(result.value);
    expect(results.map((result) => (result.status === 'rejected' ? String(result.reason) : 'started'))).toEqual(['started', 'started', 'started']);
    for (const gateway of started) expect((await fetch(`${gateway.url}/healthcheck`)).status).toBe(200);
    const builders = started.filter((gateway) => gateway.output().includes('ensure-mesh: building .mesh/'));
    expect(builders).toHaveLength(1);
    expect(readFileSync(path.join(checkout, '.mesh', '.inputs-sha256'), 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
  }, START_TIMEOUT_MS + 20_000);

  it('stops with a SIGTERM to the npm process alone: npm exits 0, the gateway too, nothing left listening', async () => {
    const gateway = started.pop();
    if (!gateway) throw new Error('no gateway started');
    expect(await gateway.terminateNpm()).toBe(0);
    // npm forwarded the signal to its child, the gateway itself (`exec`: no shell to swallow it);
    // the gateway's own helpers (tsx's esbuild service) end with it a moment later.
    const deadline = Date.now() + 5_000;
    while (gateway.groupAlive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gateway.groupAlive()).toBe(false);
    expect(await connectionRefused(gateway.url)).toBe(true);
  });

  it('leaves the build alone when its inputs are unchanged', () => {
    const index = path.join(checkout, '.mesh', 'index.ts');
    const before = statSync(index).mtimeMs;
    expect(ensure(checkout)).toContain('ensure-mesh: .mesh/ is current (inputs unchanged)');
    expect(statSync(index).mtimeMs).toBe(before);
  });

  it('rebuilds when a source changes, taking over the lock and clearing the farm of a build that was killed', () => {
    const hashFile = path.join(checkout, '.mesh', '.inputs-sha256');
    const before = readFileSync(hashFile, 'utf8');
    const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid ?? 0;
    mkdirSync(path.join(checkout, '.mesh-build', 'lock'), { recursive: true });
    writeFileSync(path.join(checkout, '.mesh-build', 'lock', 'pid'), String(dead));
    mkdirSync(path.join(checkout, '.mesh-build', 'farm-killed'));
    appendFileSync(path.join(checkout, 'sources', 'statement-filing-service', 'schema.graphql'), '\n# changed\n');
    const output = ensure(checkout);
    expect(output).toContain('ensure-mesh: another process is building .mesh/, waiting');
    expect(output).toContain('ensure-mesh: building .mesh/ (its inputs changed)');
    expect(readFileSync(hashFile, 'utf8')).not.toBe(before);
    expect(readdirSync(path.join(checkout, '.mesh-build'))).toEqual([]);
  }, 90_000);
});
