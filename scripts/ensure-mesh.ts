/**
 * Makes `.mesh/` (the `mesh build` artifacts) current, safely when several processes start at
 * once from one checkout: `mesh build` empties `<dir>/.mesh` and writes it in place, so three
 * `npm start`s side by side crashed each other (`ENOENT rmdir .mesh`). Here:
 * - no build when the sha256 of the inputs (`.meshrc.ts`, `sources/`, the lock file) matches
 *   `.mesh/.inputs-sha256` (the artifact imports `additional-resolvers/` and `src/` by path);
 * - else, under a lock (`mkdir .mesh-build/lock`, taken over when its pid is gone), `mesh build
 *   --dir` on a farm of symlinks to the checkout (Mesh always writes `<dir>/.mesh`; its paths are
 *   relative), the hash written last, and the result renamed into place. Waiters then find it current.
 * Used by `npm start`, `npm run build:mesh` (--force), the test global setup and the bench. The
 * image builds in its build stage (`npm run build`); its CMD runs node on the compiled
 * dist/src/main.js and never builds.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..');
const INPUTS = ['.meshrc.ts', 'sources', 'package-lock.json'];
const HASH_FILE = '.inputs-sha256';
const WORK = '.mesh-build';
const BUILD_TIMEOUT_MS = 180_000;

function addInputs(hash: ReturnType<typeof createHash>, root: string, relative: string): void {
  const full = path.join(root, relative);
  if (!existsSync(full)) return;
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) addInputs(hash, root, path.posix.join(relative, name));
    return;
  }
  const content = readFileSync(full);
  hash.update(`${relative}\0${content.length}\0`).update(content);
}

export function inputsHash(root = ROOT): string {
  const hash = createHash('sha256');
  for (const input of INPUTS) addInputs(hash, root, input);
  return hash.digest('hex');
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;
const builtHash = (root: string) => safely(() => readFileSync(path.join(root, '.mesh', HASH_FILE), 'utf8').trim());
const lockOwner = (lock: string) => safely(() => Number(readFileSync(path.join(lock, 'pid'), 'utf8')) || undefined);

function ownerIsGone(lock: string): boolean {
  const pid = lockOwner(lock);
  // No pid yet: the owner is between its mkdir and its write, unless the lock is old.
  if (pid === undefined) return Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) > 10_000;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return code(error) === 'ESRCH';
  }
}

/** Takes the lock, or returns false once another process has made the build current. */
async function lock(root: string, want: string | undefined): Promise<boolean> {
  const dir = path.join(root, WORK, 'lock');
  mkdirSync(path.dirname(dir), { recursive: true });
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  for (let waited = 0; ; waited++) {
    try {
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'pid'), String(process.pid));
      return true;
    } catch (error) {
      if (code(error) !== 'EEXIST') throw error;
    }
    if (want !== undefined && builtHash(root) === want) return false;
    if (ownerIsGone(dir)) rmSync(dir, { recursive: true, force: true });
    if (Date.now() > deadline) throw new Error(`ensure-mesh: ${dir} is still held after ${BUILD_TIMEOUT_MS} ms (remove it if no build runs)`);
    if (waited === 0) process.stderr.write('ensure-mesh: another process is building .mesh/, waiting\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function meshBuild(dir: string): Promise<void> {
  const bin = path.join(ROOT, 'node_modules', '@graphql-mesh', 'cli', 'cjs', 'bin.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'build', '--dir', dir], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], timeout: BUILD_TIMEOUT_MS });
    let output = '';
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mesh build failed (exit ${code ?? 'signal'}):\n${output}`))));
  });
}

/** No rename over a non-empty directory: the old build moves aside first (only lock waiters see
 * the gap). Should two builders meet (a dead owner's lock taken twice), one keeps the other's. */
function swapIn(root: string, farm: string, want: string): void {
  for (let attempt = 0; ; attempt++) {
    safely(() => renameSync(path.join(root, '.mesh'), path.join(farm, `previous-${attempt}`)));
    try {
      renameSync(path.join(farm, '.mesh'), path.join(root, '.mesh'));
      return;
    } catch (error) {
      if ((code(error) !== 'ENOTEMPTY' && code(error) !== 'EEXIST') || attempt >= 3) throw error;
      if (builtHash(root) === want) return;
    }
  }
}

/** Builds `.mesh/` unless it is current (or always, with force); see the top of the file. */
export async function ensureMesh(options: { root?: string; force?: boolean } = {}): Promise<'current' | 'built' | 'built-by-another'> {
  const root = options.root ?? ROOT;
  const want = inputsHash(root);
  if (!options.force && builtHash(root) === want) return 'current';
  if (!(await lock(root, options.force ? undefined : want))) return 'built-by-another';
  const farm = mkdtempSync(path.join(root, WORK, 'farm-'));
  try {
    if (!options.force && builtHash(root) === want) return 'built-by-another';
    // Under the lock, any other farm is left over from a build that was killed.
    for (const name of readdirSync(path.join(root, WORK))) {
      if (name.startsWith('farm-') && path.join(root, WORK, name) !== farm) rmSync(path.join(root, WORK, name), { recursive: true, force: true });
    }
    for (const name of readdirSync(root)) {
      if (name !== '.mesh' && name !== WORK) symlinkSync(path.join(root, name), path.join(farm, name));
    }
    process.stderr.write(`ensure-mesh: building .mesh/ (${options.force ? 'forced' : 'its inputs changed'})\n`);
    await meshBuild(farm);
    if (!existsSync(path.join(farm, '.mesh', 'index.ts'))) throw new Error('mesh build wrote no .mesh/index.ts');
    writeFileSync(path.join(farm, '.mesh', HASH_FILE), `${want}\n`);
    swapIn(root, farm, want);
    return 'built';
  } finally {
    // Removes the symlinks, not what they point to, and the previous build.
    rmSync(farm, { recursive: true, force: true });
    if (lockOwner(path.join(root, WORK, 'lock')) === process.pid) rmSync(path.join(root, WORK, 'lock'), { recursive: true, force: true });
  }
}

if (path.resolve(process.argv[1] ?? '') === __filename) {
  ensureMesh({ force: process.argv.includes('--force') }).then(
    (outcome) => outcome === 'current' && process.stderr.write('ensure-mesh: .mesh/ is current (inputs unchanged)\n'),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
