// Bundles cardctl into dist/ with esbuild: dist/cli.js (src/app/cli.ts), ES modules with code
// splitting, so the start-up path (commander tree, core, output) is a few chunks and every heavy
// library, and anything reached through a dynamic import(), is a chunk of its own that a command
// loads only when its run() asks for it. Packages with native code or worker files stay external
// and are resolved from node_modules at run time.
//
// Files are written to a temporary name and renamed into place, chunks before the entry, so a
// cardctl process started during a rebuild never sees a half-written file. `--clean` empties
// dist/ first (used by prepare and prepack, so a published tarball has no stale chunks).
// Beside it dist/paths.cjs, the user folders' rule bin/cardctl.js reads. First,
// src/commands/manifest.generated.ts, the command manifest (src/commands/manifest.ts), from the
// definitions; last, man/cardctl.1, the man page, rendered by the new bundle.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { artilleryProcessorPlugin } from './artillery-processor.mjs';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const external = [
  'libsql', // native addon
  'fastify', // pulls pino/thread-stream, which bundle poorly
  '@fastify/*',
  'autocannon',
];

// CommonJS dependencies bundled into ES modules may still call require(): the banner goes in every
// file, used or not (a createRequire costs ~10 µs; a command loads a few chunks).
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
  // The processor `simulate load --export artillery` writes: a bundle of its own, as text.
  plugins: [artilleryProcessorPlugin],
});

// The user folders' rule (src/config/paths.ts) as CommonJS for bin/cardctl.js, which needs the
// cache folder before it loads the CLI: the same source, not a copy.
const paths = await build({
  entryPoints: { paths: 'src/config/paths.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  write: false,
});

const files = [...paths.outputFiles, ...result.outputFiles].sort((a, b) => rank(a.path) - rank(b.path));
for (const file of files) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeAtomically(file.path, file.contents);
}

// The man page (src/help/man-page.ts), from the same help source. Committed and shipped like the
// completions; test/unit/man-page.test.ts fails when the committed copy is not current.
const { renderManPage } = await import(`${new URL('../dist/cli.js', import.meta.url).href}?build=${Date.now()}`);
const manPage = new URL('../man/cardctl.1', import.meta.url);
mkdirSync(new URL('.', manPage), { recursive: true });
writeAtomically(manPage, await renderManPage());

/**
 * src/commands/manifest.generated.ts from the command definitions: the manifest (the tree as JSON,
 * which keeps a definition's data and drops its code) and, for each leaf, the import() of the
 * module that exports it, so each verb is a chunk of its own, loaded only when it runs. Every
 * module of src/commands/ is bundled into a folder in dist/ (where the external packages
 * resolve) and loaded, each leaf found among their exports, and the folder removed. The file is
 * rewritten only when it changed, and committed, like the completions.
 */
async function writeManifest() {
  const root = new URL('../src/commands/', import.meta.url).pathname;
  // Not the manifest's own modules: the build must work when the generated one is stale or missing.
  const files = readdirSync(root, { recursive: true }).filter((file) => file.endsWith('.ts') && !/^manifest(\.generated)?\.ts$/.test(file)).sort();
  const outdir = new URL(`../dist/manifest-source.${process.pid}/`, import.meta.url);
  await build({
    entryPoints: files.map((file) => join(root, file)),
    outbase: root,
    outdir: outdir.pathname,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external,
    banner: { js: REQUIRE_BANNER },
    define: { __CARDCTL_VERSION__: JSON.stringify(version) },
    plugins: [artilleryProcessorPlugin],
    logLevel: 'warning',
  });
  try {
    const modules = [];
    for (const file of files) modules.push({ file: file.replace(/\.ts$/, '.js'), exports: await import(new URL(file.replace(/\.ts$/, '.js'), outdir).href) });
    const { commandTree } = modules.find((m) => m.file === 'index.js').exports;
    const leaves = [];
    const walk = (node, path) => ('commands' in node ? node.commands.forEach((child) => walk(child, [...path, child.name])) : leaves.push({ path: path.join(' '), ...exporterOf(node, modules, path) }));
    commandTree.forEach((node) => walk(node, [node.name]));
    const loaders = leaves.map(({ path, file, name }) => `  ${JSON.stringify(path)}: () => import('./${file}').then((module) => module.${name}),`);
    const contents = `// Written by scripts/build.mjs from the command definitions (src/commands/manifest.ts); do not edit.
export const MANIFEST_JSON = [
${jsonLines(JSON.stringify(commandTree))}
].join('');

export const LEAF_MODULES = {
${loaders.join('\n')}
};
`;
    const target = new URL('../src/commands/manifest.generated.ts', import.meta.url);
    if (!existsSync(target) || readFileSync(target, 'utf8') !== contents) writeAtomically(target, contents);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The module of src/commands/ that exports `leaf`, and the export's name (a default export first). */
function exporterOf(leaf, modules, path) {
  for (const name of ['default', null]) {
    for (const { file, exports } of modules) {
      const found = name ? (exports[name] === leaf ? name : undefined) : Object.keys(exports).find((key) => exports[key] === leaf);
      if (found) return { file, name: found };
    }
  }
  throw new Error(`cardctl ${path.join(' ')}: no module of src/commands/ exports its definition (export it, so it can be loaded alone)`);
}

function writeAtomically(path, contents) {
  const temporary = `${path instanceof URL ? path.pathname : path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/** Chunks first, the entry (dist/cli.js) last. */
function rank(path) {
  return path.includes('/chunks/') ? 0 : path.endsWith('.map') ? 1 : 2;
}

/** A long JSON text as string literals of at most 400 characters, one a line: a file people and tools can read. */
function jsonLines(text) {
  const characters = Array.from(text);
  const lines = [];
  for (let at = 0; at < characters.length; at += 400) lines.push(`  ${JSON.stringify(characters.slice(at, at + 400).join(''))},`);
  return lines.join('\n');
}
