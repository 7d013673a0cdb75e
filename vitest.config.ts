import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Every test file starts its own emulator on a free loopback port; files run in parallel.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
