// Bundles cardctl into dist/ with esbuild, three ways:
// - dist/cli.js, the whole CLI (src/cli.ts): the start-up path (commander tree, core, output) in
//   one chunk; every heavy library and anything reached through dynamic import() in a separate
//   chunk (code splitting), so a command parses only what it uses.
// - dist/cli-<name>.cjs, one route bundle per top-level command of src/commands/routes.ts
//   (src/cli-route.ts): that command's definitions and everything of cardctl they reach, in one
//   CommonJS file with no splitting, since Node's ES module loader costs ~0.2 ms a file and
//   `cards list` reached ~50 chunks: on Node 24 `cards list -o json` took 74 ms against 55 ms from
//   its route bundle (BENCHMARKS.md, "Node's floor"). bin/cardctl.js runs a command line from the
//   bundle of its first word when there is one, with V8's code cache (bin/code-cache.js).
// - dist/vendor/<package>.cjs: the libraries cardctl loads only on demand (VENDOR below), one file
//   each, which the route bundles import instead of carrying their own copy; bundled into a route
//   they would double its size (parsed on every start, +6 ms on Node 20).
// Packages with native code or worker files stay external and are resolved from node_modules at
// run time. Node's built-in modules are loaded on first use (lazyBuiltins).
//
// Files are written to a temporary name and renamed into place, chunks before the entry, so a
// cardctl process started during a rebuild never sees a half-written file. `--clean` empties
// dist/ first (used by prepare and prepack, so a published tarball has no stale chunks).
// Last, dist/help-cache.json: every `--help` page, rendered by the new bundle (see below), and
// man/cardctl.1, the man page.
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

const external = [
  'libsql', // native addon
  'fastify', // pulls pino/thread-stream, which bundle poorly
  '@fastify/*',
  'autocannon',
];

// Libraries imported only with import() (a command's run() loading what it needs), as the route
// bundles share them: dist/vendor/<file>.cjs each.
const VENDOR = ['undici', 'node-forge', 'jose', '@inquirer/prompts', 'yaml', 'handlebars', 'csv-parse', 'conf', 'cli-table3', 'cli-progress', 'chalk'];
const vendorFile = (name) => name.replace(/^@/, '').replace('/', '-');

// The top-level commands, each with the module of its definition, read from src/commands/routes.ts
// (the one list of them); checked against the built CLI's list below.
const ROUTES = [...readFileSync(new URL('../src/commands/routes.ts', import.meta.url), 'utf8').matchAll(/^ {2}'?([\w-]+)'?: \(\) => import\('\.\/([^']+)'\)/gm)]
  .map(([, name, module]) => ({ name, module: `./commands/${module}` }));

const REQUIRE_BANNER = "import { createRequire as __cardctlRequire } from 'node:module'; const require = __cardctlRequire(import.meta.url);";

if (process.argv.includes('--clean')) rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

/**
 * Node's built-in modules as CommonJS modules of `process.getBuiltinModule()`, so each is loaded
 * when the code that uses it first runs instead of when the file is linked, and loaded as
 * require() loads it: an `import` of `node:crypto` or `node:fs` at the top of a chunk made Node
 * load crypto (with WebCrypto), the file streams and readline, 60 built-in modules in all, before
 * `cards list` made its request; ~4 ms on Node 24. Those of LOADED_ON_USE wait until a property
 * is read.
 */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    build.onResolve({ filter: /^[a-z_:/]+$/ }, ({ path }) => (isBuiltin(path) ? { path, namespace: 'builtin' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ path }) => ({
      contents: LOADED_ON_USE.has(path.replace(/^node:/, ''))
        ? `let loaded; const load = () => (loaded ??= process.getBuiltinModule(${JSON.stringify(path)}));
module.exports = new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => { const found = Reflect.getOwnPropertyDescriptor(load(), key); return found && { ...found, configurable: true }; },
});`
        : `module.exports = process.getBuiltinModule(${JSON.stringify(path)});`,
      loader: 'js',
    }));
  },
};

// commander requires child_process when it is loaded, for executable subcommands, which cardctl
// does not have: loading it (with net and dgram) cost ~1.3 ms of every command on Node 24. Only
// modules whose exports are a plain object can wait so (a class, like events', cannot).
const LOADED_ON_USE = new Set(['child_process']);

/** The route bundles' imports of VENDOR libraries, pointed at dist/vendor/ beside them. */
const vendorImports = {
  name: 'vendor-imports',
  setup(build) {
    const names = new Set(VENDOR);
    build.onResolve({ filter: /^[@a-z]/ }, ({ path }) => (names.has(path) ? { path: `./vendor/${vendorFile(path)}.cjs`, external: true } : undefined));
  },
};

const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // CommonJS dependencies bundled into ESM may still call require() (withoutUnusedRequire).
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
};

const wholeCli = build({
  ...common,
  entryPoints: { cli: 'src/cli.ts' },
  outdir: 'dist',
  splitting: true,
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
});

// CommonJS like the route bundles, which require() them; each library re-exported by name.
const vendor = build({
  ...common,
  format: 'cjs',
  banner: {},
  entryPoints: VENDOR.map((name) => ({ in: `vendor:${name}`, out: vendorFile(name) })),
  outdir: 'dist/vendor',
  outExtension: { '.js': '.cjs' },
  plugins: [{
    name: 'vendor-entries',
    setup(build) {
      build.onResolve({ filter: /^vendor:/ }, ({ path }) => ({ path: path.slice('vendor:'.length), namespace: 'vendor' }));
      build.onLoad({ filter: /.*/, namespace: 'vendor' }, async ({ path }) => {
        const names = Object.keys(await import(path));
        const named = names.filter((name) => name !== 'default');
        const contents = [
          `import * as library from ${JSON.stringify(path)};`,
          names.includes('default') ? 'export default library.default;' : '',
          named.length ? `export const { ${named.join(', ')} } = library;` : '',
        ];
        return { contents: contents.join('\n'), resolveDir: process.cwd(), loader: 'js' };
      });
    },
  }],
});

// CommonJS, so bin/code-cache.js can compile them with V8's code cache, and with every import()
// a require(), which V8 runs in a script compiled so; import.meta.url, which a CommonJS file does
// not have, is the file's URL. The whole CLI is loaded by the function bin/cardctl.js hands the
// bundle's default export, which gives the command line's main().
const routes = ROUTES.map((route) => build({
  ...common,
  format: 'cjs',
  supported: { 'dynamic-import': false },
  banner: { js: "const __cardctlModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { ...common.define, 'import.meta.url': '__cardctlModuleUrl' },
  stdin: {
    contents: `import definition from ${JSON.stringify(route.module)};\nimport { routeMain } from './cli-route.js';\nexport default (whole) => routeMain(definition, whole);\n`,
    resolveDir: 'src',
    sourcefile: `cli-${route.name}.ts`,
    loader: 'ts',
  },
  outfile: `dist/cli-${route.name}.cjs`,
  // No source map: a route bundle repeats code whose maps dist/chunks/ has (22 MB more in all).
  plugins: [lazyBuiltins, vendorImports],
}));

const results = await Promise.all([wholeCli, vendor, ...routes]);
routes.forEach((_, i) => checkRouteBundle(ROUTES[i], results[i + 2]));

const files = results.flatMap((result) => result.outputFiles).sort((a, b) => rank(a.path) - rank(b.path));
for (const file of files) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeAtomically(file.path, file.path.endsWith('.cjs') && !file.path.includes('/vendor/') ? withVendorInterop(file) : withoutUnusedRequire(file));
}
removeStaleFiles(new Set(files.map((file) => file.path)));

// The help cache (src/help/help-cache.ts): every `--help` page, rendered by the bundle just
// built, so bin/cardctl.js can print it without loading the bundle. Written after the bundle, so a
// cache on disk is never older than the code it describes for longer than this step.
const { commands, renderHelpCache, renderManPage } = await import(`${new URL('../dist/cli.js', import.meta.url).href}?build=${Date.now()}`);
const routeNames = ROUTES.map((route) => route.name).join(' ');
if (routeNames !== Object.keys(commands.loaders).join(' ')) {
  throw new Error(`build: the routes read from src/commands/routes.ts (${routeNames}) are not the CLI's (${Object.keys(commands.loaders).join(' ')}); is its syntax still \`name: () => import('./path')…\`?`);
}
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

/**
 * A route bundle's import() of a vendor file, made a require() by esbuild, reads the file as Node
 * reads CommonJS (`default` is module.exports), since cardctl's sources are ES modules. A vendor
 * file is esbuild's CommonJS of an ES module (it says `__esModule`), whose `default` is the
 * library's own: dropping that Node-mode flag (__toESM's second argument) gives each import() what
 * it gives from the library itself (`const { default: Conf } = await import('conf')`).
 */
function withVendorInterop(file) {
  const pattern = /__toESM\(require\("(\.\/vendor\/[^"]+)"\),\s*1\)/g;
  const dynamic = file.text.match(/\.then\(\(\)=>__toESM\(require\("\.\/vendor\//g)?.length ?? 0;
  const text = file.text.replace(pattern, (_, path) => `__toESM(require("${path}"))`);
  if (file.text.match(pattern)?.length !== dynamic && dynamic > 0) throw new Error(`build: ${file.path}: an import() of a vendor file in a form this build does not know`);
  return text;
}

/** Chunks and vendor files first, the entries (dist/cli.js, dist/cli-<name>.cjs) last. */
function rank(path) {
  return path.includes('/chunks/') || path.includes('/vendor/') ? 0 : path.endsWith('.map') ? 1 : 2;
}

/**
 * A route bundle that reached the list of every command (routes.ts or commands/index.ts) would
 * carry them all; one with an import() left (of a file esbuild left out) could not run it.
 */
function checkRouteBundle(route, result) {
  const outputs = Object.values(result.metafile.outputs);
  const whole = outputs.flatMap((output) => Object.keys(output.inputs)).find((input) => /src\/commands\/(routes|index)\.ts$/.test(input));
  if (whole) throw new Error(`build: the route bundle of ${route.name} imports ${whole}, and with it every command; import the whole CLI through cli-route.ts instead`);
  const dynamic = outputs.flatMap((output) => output.imports).find((imported) => imported.kind === 'dynamic-import');
  if (dynamic) throw new Error(`build: the route bundle of ${route.name} keeps import('${dynamic.path}'), which bin/code-cache.js cannot run`);
}

/**
 * Files of an older build that this one did not write (a build without --clean): route bundles of
 * top-level commands that no longer exist or of an older form, vendor files; and the code caches
 * (bin/code-cache.js), made for the bundles just replaced.
 */
function removeStaleFiles(written) {
  const dist = fileURLToPath(new URL('../dist', import.meta.url));
  const stale = (dir, pattern, recursive) => readdirSync(dir, { recursive })
    .map((name) => join(dir, name))
    .filter((path) => pattern.test(path) && !written.has(path) && statSync(path).isFile());
  for (const path of [...stale(dist, /\/cli-[^/]+\.c?js(\.map)?$/, false), ...stale(join(dist, 'vendor'), /./, true)]) rmSync(path);
  rmSync(join(dist, 'cache'), { recursive: true, force: true });
}
