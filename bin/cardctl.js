#!/usr/bin/env node
// Thin entry: everything lives in the bundle. The V8 compile cache (Node >= 22.1) makes
// later start-ups skip parsing; on Node 20 it is simply absent.
import module from 'node:module';
if (typeof module.enableCompileCache === 'function' && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  try { module.enableCompileCache(); } catch { /* cache dir not writable: run without it */ }
}
const { main } = await import('../dist/cli.js');
process.exitCode = await main(process.argv.slice(2));
