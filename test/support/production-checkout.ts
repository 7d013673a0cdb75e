/**
 * A checkout as an operator runs it, in a temporary folder: dist/ from `npm run build`
 * (scripts/build.ts, into that folder), package.json and the lock file, and a node_modules holding
 * the production tree only, as npm itself lists it (`npm ls --omit=dev`), copied from the suite's
 * node_modules instead of installed: `npm ci --omit=dev --prefer-offline` takes about 40 s here,
 * the copy a few. No emulator/, no src/, no TypeScript loader or compiler.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
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

export function productionCheckout(): ProductionCheckout {
  const dir = mkdtempSync(path.join(tmpdir(), 'sgw-production-'));
  // tsx's loader in this one process (tsx's CLI would start Node again in a child).
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', path.join(dir, 'dist')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
  for (const file of ['package.json', 'package-lock.json']) cpSync(path.join(ROOT, file), path.join(dir, file));
  for (const source of productionPackages()) {
    // A package's own files; its nested node_modules hold packages listed (or not) on their own.
    const nested = path.join(source, 'node_modules');
    cpSync(source, path.join(dir, path.relative(ROOT, source)), { recursive: true, filter: (file) => file !== nested });
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
