import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(__filename);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module). Node loads the CJS one for dependencies such
    // as @graphql-tools; Vite would pick the ESM one for our sources, and graphql-js refuses
    // schemas from "another module or realm". One copy for everybody:
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Fails the run when Redis is absent; builds the Mesh artifacts the gateway starts from.
    globalSetup: ['test/global-setup.ts'],
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
  },
});
