import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // e2e tests spawn processes and servers; two cores on CI machines.
    pool: 'forks',
    maxWorkers: 2,
    // HOME and the XDG/Windows directories point at a temporary directory for the whole run
    // (workers and the processes they start inherit it); the run fails if cardctl wrote there
    // or into the real user's cardctl directories.
    globalSetup: ['test/setup/isolated-home.ts'],
    setupFiles: ['test/setup/worker-env.ts'],
  },
});
