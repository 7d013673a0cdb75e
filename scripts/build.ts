/**
 * `npm run build`: the gateway as JavaScript in dist/, for `npm run start:prod` and the image, so
 * that production runs on `node` alone (no TypeScript loader or compiler installed).
 * tsc rather than a bundler: file by file, the checkout's layout is kept, so what code finds from
 * its own directory (the /ops and GraphiQL assets, the upstream SDL, `.mesh/` from src/gateway/server.ts)
 * is where it was, and Mesh's generated code keeps importing its handlers by package name.
 * Steps: the Mesh artifacts made current, tsc with tsconfig.build.json (which compiles `.mesh/`
 * too), the emulator's code taken out (src/gateway/runtime.ts imports it only without upstream URLs,
 * which the compiled entry point refuses), and the files read at run time copied beside the code.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureMesh, ROOT } from './ensure-mesh';

/** dist/, or the folder named by the first argument (test/e2e/production-start.test.ts builds into its own). */
const DIST = path.resolve(process.argv[2] ?? path.join(ROOT, 'dist'));
/** Files the compiled code reads from beside itself, copied as they are. */
const RUNTIME_FILES = ['src/ops/assets', 'src/ops/graphiql/assets', 'sources/statement-filing-service/schema.graphql'];
/** Compiled only because the lazy import names them; never run from dist/. */
const LEFT_OUT = ['emulator', 'src/gateway/embedded-upstreams.js', 'src/gateway/embedded-upstreams.js.map'];

async function build(): Promise<void> {
  if (path.relative(DIST, ROOT).split(path.sep)[0] !== '..') throw new Error(`build: refusing to empty ${DIST}, which holds the checkout`);
  await ensureMesh();
  rmSync(DIST, { recursive: true, force: true });
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', DIST], { cwd: ROOT, stdio: 'inherit' });
  if (compiled.status !== 0) throw new Error(`tsc failed (exit ${compiled.status ?? compiled.signal})`);
  for (const name of LEFT_OUT) rmSync(path.join(DIST, name), { recursive: true, force: true });
  for (const name of RUNTIME_FILES) cpSync(path.join(ROOT, name), path.join(DIST, name), { recursive: true });
  process.stderr.write(`build: ${path.relative(ROOT, DIST) || DIST} written (${readdirSync(DIST).join(', ')}); run it with npm run start:prod\n`);
}

build().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
