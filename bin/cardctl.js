#!/usr/bin/env node
// Thin entry: everything lives in the bundle. The V8 compile cache (Node >= 22.1) makes
// later start-ups skip parsing; on Node 20 it is simply absent.
import { readFileSync } from 'node:fs';
import module from 'node:module';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // The most frequent scripted call: answered without loading the bundle (bench/startup.mjs).
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else {
  if (typeof module.enableCompileCache === 'function' && !process.env.NODE_DISABLE_COMPILE_CACHE) {
    try { module.enableCompileCache(); } catch { /* cache dir not writable: run without it */ }
  }
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(argv);
}
