// Bundles src/cli.ts into dist/ with esbuild.
// The start-up path (commander tree, core, output) is bundled into one chunk; every heavy
// library and anything reached through dynamic import() lands in a separate chunk (code
// splitting), so `cardctl --version` never parses them. Packages with native code or worker
// files stay external and are resolved from node_modules at run time.
//
// Files are written to a temporary name and renamed into place, chunks before the entry, so a
// cardctl process started during a rebuild never sees a half-written file. `--clean` empties
// dist/ first (used by prepare and prepack, so a published tarball has no stale chunks).
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const external = [
  'libsql', // native addon
  'fastify', // pulls pino/thread-stream, which bundle poorly
  '@fastify/*',
  'autocannon',
];

if (process.argv.includes('--clean')) rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

const result = await build({
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
  write: false,
  metafile: true,
});

const files = [...result.outputFiles].sort((a, b) => rank(a.path) - rank(b.path));
for (const file of files) {
  mkdirSync(dirname(file.path), { recursive: true });
  const temporary = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}

/** Chunks first, the entry (dist/cli.js) last. */
function rank(path) {
  return path.includes('/chunks/') ? 0 : path.endsWith('.map') ? 1 : 2;
}
