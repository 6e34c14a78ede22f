// The Node binaries a start-up benchmark measures cardctl on: the machine's Node (the one running
// the benchmark) and the newest LTS line, each from the cache scripts/test-node.mjs fills
// (.cache/node/v<version>/). `--node PATH` (repeatable) or BENCH_NODE (paths joined by commas)
// name them instead; BENCH_LTS names another line than 24.
//
//   import { benchNodes } from './lib/nodes.mjs';
//   for (const { label, path } of benchNodes(process.argv.slice(2))) …   // label: 'node v24.21.0'
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CACHE = fileURLToPath(new URL('../../.cache/node', import.meta.url));
/** The newest LTS line when this was written; BENCH_LTS overrides it. */
const LTS = process.env.BENCH_LTS ?? '24';

/** [{ label, path, version }] for `args` (--node PATH …), BENCH_NODE, or the default pair. */
export function benchNodes(args = []) {
  const given = [];
  for (let i = 0; i < args.length; i++) if (args[i] === '--node' && args[i + 1]) given.push(args[++i]);
  if (!given.length && process.env.BENCH_NODE) given.push(...process.env.BENCH_NODE.split(',').filter(Boolean));
  const paths = given.length ? given : [process.execPath, cachedNode(LTS)].filter(Boolean);
  const nodes = paths.map((path) => ({ path, version: execFileSync(path, ['--version'], { encoding: 'utf8' }).trim() }));
  const unique = nodes.filter((node, i) => nodes.findIndex((other) => other.version === node.version) === i);
  if (!given.length && unique.length < 2) console.error(`note: no cached Node ${LTS} in ${CACHE} (node scripts/test-node.mjs ${LTS} fetches it); measuring ${process.version} only`);
  return unique.map((node) => ({ ...node, label: `node ${node.version}` }));
}

/** The newest cached Node of `line`, or undefined. */
function cachedNode(line) {
  if (!existsSync(CACHE)) return undefined;
  const newest = readdirSync(CACHE)
    .map((name) => /^v(\d+)\.(\d+)\.(\d+)$/.exec(name))
    .filter((match) => match && match[1] === line)
    .sort((a, b) => Number(b[2]) - Number(a[2]) || Number(b[3]) - Number(a[3]))[0];
  if (!newest) return undefined;
  const dir = join(CACHE, newest[0]);
  const binary = join(dir, JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).bin.node);
  return existsSync(binary) ? binary : undefined;
}
