/**
 * A checkout as an operator runs it, in a temporary folder: dist/ from `npm run build`
 * (scripts/build.ts, into that folder), package.json and the lock file, and a node_modules holding
 * the production tree only, as npm itself lists it (`npm ls --omit=dev`), taken from the suite's
 * node_modules instead of installed: `npm ci --omit=dev --prefer-offline` takes about 40 s here.
 * Its files are hard links (a copy spent some 10 s of CPU in the kernel on a loaded run), and the
 * packages are real folders of the checkout, not symlinks, so that Node resolves each package's
 * imports inside the checkout and a dependency missing from the production tree fails there.
 * No emulator/, no src/, no TypeScript loader or compiler.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './launcher';

export interface ProductionCheckout {
  readonly dir: string;
  remove(): void;
}

/** Absolute paths of the production packages installed in the checkout (not the root itself). */
function productionPackages(): string[] {
  // Exit status 1 on warnings such as extraneous packages: the list is still complete.
  const run = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  const paths = run.stdout.split('\n').filter((line) => line.startsWith(path.join(ROOT, 'node_modules') + path.sep));
  if (paths.length < 50) throw new Error(`npm ls --omit=dev listed ${paths.length} packages:\n${run.stderr}`);
  return paths;
}

/** `source`'s files hard-linked under `target` (symlinks recreated), leaving out `skip`. */
function linkTree(source: string, target: string, skip: string): void {
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = path.join(source, entry.name);
    const to = path.join(target, entry.name);
    if (from === skip) continue;
    if (entry.isDirectory()) linkTree(from, to, skip);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else linkSync(from, to);
  }
}

export function productionCheckout(): ProductionCheckout {
  const dir = mkdtempSync(path.join(tmpdir(), 'sgw-production-'));
  // tsx's loader in this one process (tsx's CLI would start Node again in a child).
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', path.join(dir, 'dist')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
  for (const file of ['package.json', 'package-lock.json']) cpSync(path.join(ROOT, file), path.join(dir, file));
  for (const source of productionPackages()) {
    // A package's own files; its nested node_modules hold packages listed (or not) on their own.
    linkTree(source, path.join(dir, path.relative(ROOT, source)), path.join(source, 'node_modules'));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
