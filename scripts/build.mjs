// Bundles src/cli.ts into dist/ with esbuild.
// The start-up path (commander tree, core, output) is bundled into one chunk; every heavy
// library and anything reached through dynamic import() lands in a separate chunk (code
// splitting), so `cardctl --version` never parses them. Packages with native code or worker
// files stay external and are resolved from node_modules at run time.
//
// Files are written to a temporary name and renamed into place, chunks before the entry, so a
// cardctl process started during a rebuild never sees a half-written file. `--clean` empties
// dist/ first (used by prepare and prepack, so a published tarball has no stale chunks).
// Last, dist/help-cache.json: every `--help` page, rendered by the new bundle (see below), and
// man/cardctl.1, the man page.
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

const REQUIRE_BANNER = "import { createRequire as __cardctlRequire } from 'node:module'; const require = __cardctlRequire(import.meta.url);";

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
  banner: { js: REQUIRE_BANNER },
  define: { __CARDCTL_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
  legalComments: 'none',
  // Whitespace and syntax minified (names kept, the linked source map maps back): less for Node to
  // read and parse on every start; `cards list -o json` CPU 113 -> 107 ms on Node 20, 72 -> 67 on 24.
  minifyWhitespace: true,
  minifySyntax: true,
  write: false,
  metafile: true,
});

const files = [...result.outputFiles].sort((a, b) => rank(a.path) - rank(b.path));
for (const file of files) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeAtomically(file.path, withoutUnusedRequire(file));
}

// The help cache (src/help/help-cache.ts): every `--help` page, rendered by the bundle just
// built, so bin/cardctl.js can print it without loading the bundle. Written after the bundle, so a
// cache on disk is never older than the code it describes for longer than this step.
const { renderHelpCache, renderManPage } = await import(`${new URL('../dist/cli.js', import.meta.url).href}?build=${Date.now()}`);
const helpCache = new URL('../dist/help-cache.json', import.meta.url);
writeAtomically(helpCache, JSON.stringify(await renderHelpCache()));

// The man page (src/help/man-page.ts), from the same help source. Committed and shipped like the
// completions; test/unit/man-page.test.ts fails when the committed copy is not current.
const manPage = new URL('../man/cardctl.1', import.meta.url);
mkdirSync(new URL('.', manPage), { recursive: true });
writeAtomically(manPage, await renderManPage());

function writeAtomically(path, contents) {
  const temporary = `${path instanceof URL ? path.pathname : path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/**
 * The file's contents, the require() banner blanked (its line kept, so the source map still fits)
 * where nothing else in the file says `require`: 9 chunks of ~170 call it, and a createRequire
 * per module loaded costs ~2.5 ms of CPU on Node 24 for the ~45 modules of `cards list`.
 */
function withoutUnusedRequire(file) {
  if (!file.path.endsWith('.js') || !file.text.startsWith(REQUIRE_BANNER)) return file.contents;
  const body = file.text.slice(REQUIRE_BANNER.length);
  return /\brequire\b/.test(body) ? file.contents : body;
}

/** Chunks first, the entry (dist/cli.js) last. */
function rank(path) {
  return path.includes('/chunks/') ? 0 : path.endsWith('.map') ? 1 : 2;
}
