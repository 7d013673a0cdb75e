/**
 * `npm run bench`'s first step: bench/node_modules made current from bench/package-lock.json (Hive
 * Gateway and autocannon, which nothing but the bench uses, so that neither is in the project's
 * own install). Installs with `npm ci` when the lock file's sha256 differs from the one recorded
 * after the last install; otherwise does nothing.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const BENCH = __dirname;
const MARKER = path.join(BENCH, 'node_modules', '.package-lock-sha256');

const want = createHash('sha256').update(readFileSync(path.join(BENCH, 'package-lock.json'))).digest('hex');
let have: string | undefined;
try {
  have = readFileSync(MARKER, 'utf8').trim();
} catch {
  have = undefined;
}
if (have === want) process.exit(0);
process.stderr.write('bench: installing bench/node_modules (Hive Gateway, autocannon) from bench/package-lock.json\n');
const run = spawnSync('npm', ['ci', '--prefix', BENCH, '--no-audit', '--no-fund', '--prefer-offline'], { stdio: 'inherit' });
if (run.status !== 0) {
  process.stderr.write(`bench: npm ci in bench/ failed (exit ${run.status ?? run.signal})\n`);
  process.exit(1);
}
writeFileSync(MARKER, `${want}\n`);
