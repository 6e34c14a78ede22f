import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { artilleryProcessorText, PROCESSOR_MODULE } from './scripts/artillery-processor.mjs';

export default defineConfig({
  // The inspector's page files are imported as text (src/sandbox/inspector/assets.ts): esbuild
  // does it for the build, this for the tests that run the sources.
  plugins: [{
    name: 'inspector-text-imports',
    enforce: 'pre',
    load(id) {
      if (/[\\/]src[\\/]sandbox[\\/]inspector[\\/][^\\/]+\.(html|css|js)$/.test(id)) return `export default ${JSON.stringify(readFileSync(id, 'utf8'))};`;
      return undefined;
    },
  }, {
    // The processor of `simulate load --export artillery`, bundled as the build bundles it.
    name: 'artillery-processor',
    enforce: 'pre',
    resolveId(id) {
      return id === PROCESSOR_MODULE ? `\0${PROCESSOR_MODULE}` : undefined;
    },
    async load(id) {
      return id === `\0${PROCESSOR_MODULE}` ? `export default ${JSON.stringify(await artilleryProcessorText())};` : undefined;
    },
  }],
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
