import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(__filename);

// Three tiers, by name and folder (docs/development.md): `*.unit.test.ts` need no Redis, no process
// and no Mesh build; test/e2e/ holds the process-level suites; every other test file is an
// integration spec on a real Redis, the emulator and in-process gateways. `npm test` runs all
// three; `npm run test:unit` the first alone, without the Redis check.
const UNIT = 'test/**/*.unit.test.ts';
const E2E = 'test/e2e/**/*.test.ts';
// Fails the run when Redis is absent; builds the Mesh artifacts the gateway starts from.
const NEEDS_REDIS_AND_MESH = ['test/global-setup.ts'];

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module). Node loads the CJS one for dependencies such
    // as @graphql-tools; Vite would pick the ESM one for our sources, and graphql-js refuses
    // schemas from "another module or realm". One copy for everybody:
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    projects: [
      // Nothing listens on port 1: a unit spec that reaches for the tests' Redis fails in `npm test` too.
      { extends: true, test: { name: 'unit', include: [UNIT], env: { TEST_REDIS_URL: 'redis://127.0.0.1:1/0' } } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [UNIT, E2E], globalSetup: NEEDS_REDIS_AND_MESH } },
      { extends: true, test: { name: 'e2e', include: [E2E], globalSetup: NEEDS_REDIS_AND_MESH } },
    ],
    // Every test file starts its own emulator on a free loopback port; files run in parallel.
    pool: 'forks',
    // A worker keeps its modules from one test file to the next: Mesh, graphql-js and the gateway
    // load once per worker instead of once per file. Nothing of ours is global (two gateways run in
    // one process), and each file starts its own gateways, emulators and stores.
    isolate: false,
    // Test files mostly wait on processes, timers and sockets they started (gateways, emulators,
    // Redis servers): a clean-clone CI run kept about 1.3 of its 2 cores busy with two workers, so
    // three files run at once.
    maxWorkers: 3,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // expect.poll waits for what a page or process shows (a list rendered, a metric moved): 1 s by
    // default, which a loaded two-core CI run (three workers, Chromium, typecheck and lint) missed.
    // A passing poll returns as soon as it holds; only a failing one waits the whole 10 s.
    expect: { poll: { timeout: 10_000 } },
  },
});
