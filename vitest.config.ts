import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/fast-check-seed.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // one test file per core: the default (cores - 1) runs the files one at a time on a 2-core machine, and most
    // files wait on child processes (Prism, sandboxes, Chromium) rather than compute (CI: 7 min -> 4 min per Node)
    maxWorkers: '100%',
  },
});
