// Bundles src/cli.ts into dist/ with esbuild.
// The start-up path (commander tree, core, output) is bundled into one chunk; every
// command's run() and the heavy libraries are reached through dynamic import() and land
// in separate chunks (code splitting), so `cardctl --version` never parses them.
// Packages with native code or worker files stay external and are resolved from node_modules.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const external = [
  'libsql', // native addon
  'fastify', // pulls pino/thread-stream, which bundle poorly
  '@fastify/*',
  'autocannon',
];

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  external,
  chunkNames: 'chunks/[name]-[hash]',
  // CommonJS dependencies bundled into ESM need require() for node built-ins.
  banner: { js: "import { createRequire as __cardctlRequire } from 'node:module'; const require = __cardctlRequire(import.meta.url);" },
  define: { __CARDCTL_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
  legalComments: 'none',
});
