// Bundles cardctl into dist/ with esbuild: dist/cli.js (src/app/cli.ts), ES modules with code
// splitting, so the start-up path (commander tree, core, output) is a few chunks and every heavy
// library, and anything reached through a dynamic import(), is a chunk of its own that a command
// loads only when its run() asks for it. Packages with native code or worker files stay external
// and are resolved from node_modules at run time.
//
// Files are written to a temporary name and renamed into place, chunks before the entry, so a
// cardctl process started during a rebuild never sees a half-written file. `--clean` empties
// dist/ first (used by prepare and prepack, so a published tarball has no stale chunks).
// First, src/commands/manifest.generated.ts, the command manifest (src/commands/manifest.ts), from
// the definitions; last, man/cardctl.1, the man page, rendered by the new bundle.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const external = [
  'libsql', // native addon
  'fastify', // pulls pino/thread-stream, which bundle poorly
  '@fastify/*',
  'autocannon',
];

// CommonJS dependencies bundled into ES modules may still call require() (withoutUnusedRequire).
const REQUIRE_BANNER = "import { createRequire as __cardctlRequire } from 'node:module'; const require = __cardctlRequire(import.meta.url);";

if (process.argv.includes('--clean')) rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await writeManifest();

const result = await build({
  entryPoints: { cli: 'src/app/cli.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  external,
  chunkNames: 'chunks/[name]-[hash]',
  banner: { js: REQUIRE_BANNER },
  define: { __CARDCTL_VERSION__: JSON.stringify(version) },
  logLevel: 'warning',
  legalComments: 'none',
  // Whitespace and syntax minified, names kept (the linked source map maps back): less for Node
  // to read and parse on every start.
  minifyWhitespace: true,
  minifySyntax: true,
  write: false,
});

const files = [...result.outputFiles].sort((a, b) => rank(a.path) - rank(b.path));
for (const file of files) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeAtomically(file.path, withoutUnusedRequire(file));
}

// The man page (src/help/man-page.ts), from the same help source. Committed and shipped like the
// completions; test/unit/man-page.test.ts fails when the committed copy is not current.
const { renderManPage } = await import(`${new URL('../dist/cli.js', import.meta.url).href}?build=${Date.now()}`);
const manPage = new URL('../man/cardctl.1', import.meta.url);
mkdirSync(new URL('.', manPage), { recursive: true });
writeAtomically(manPage, await renderManPage());

/**
 * src/commands/manifest.generated.ts from the command definitions: they are bundled on their own
 * into a file in dist/ (where the external packages resolve), loaded, and the file removed. The
 * manifest is rewritten only when it changed, and committed, like the completions.
 */
async function writeManifest() {
  const source = new URL(`../dist/manifest-source.${process.pid}.mjs`, import.meta.url);
  await build({
    stdin: {
      contents: "export { commandTree } from './src/commands/index.ts'; export { manifestModule } from './src/commands/manifest.ts';",
      resolveDir: new URL('..', import.meta.url).pathname,
      loader: 'ts',
    },
    outfile: source.pathname,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external,
    banner: { js: REQUIRE_BANNER },
    define: { __CARDCTL_VERSION__: JSON.stringify(version) },
    logLevel: 'warning',
  });
  try {
    const { commandTree, manifestModule } = await import(source.href);
    const target = new URL('../src/commands/manifest.generated.ts', import.meta.url);
    const contents = manifestModule(commandTree);
    if (!existsSync(target) || readFileSync(target, 'utf8') !== contents) writeAtomically(target, contents);
  } finally {
    rmSync(source, { force: true });
  }
}

function writeAtomically(path, contents) {
  const temporary = `${path instanceof URL ? path.pathname : path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/**
 * The file's contents without the require() banner (its line kept, so the source map still fits)
 * where nothing else in the file says `require`: only a few chunks call it, and a createRequire
 * per module loaded is CPU every command pays for nothing.
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
