// --jq: filters the JSON that `-o json` would print with real jq (jq-wasm: jq compiled to
// WebAssembly, shipped inside the package). Loaded only when the flag is used.
import { UsageError } from '../core/errors.js';

/**
 * Runs `expression` over `value` the way `jq -r` does: each result on its own line, strings
 * printed raw (as gh does for --jq), everything else as JSON. Errors in the expression —
 * compile or run time — are usage errors carrying jq's own message.
 */
export async function applyJq(value: unknown, expression: string): Promise<string> {
  const jq = await loadJq();
  try {
    const text = await jq.raw(JSON.stringify(value ?? null), expression, ['-r']);
    return text === '' || text.endsWith('\n') ? text : `${text}\n`;
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).trim();
    // jq's own diagnostics start with "jq: "; anything else is a failure of the runtime.
    if (!/(^|\n)jq: /.test(message)) throw error;
    throw new UsageError(`--jq: ${message.split('\n').map((line) => line.trimEnd()).filter(Boolean).join(' / ')}`, {
      code: 'USAGE_JQ',
      hint: 'the expression is jq syntax, e.g. --jq \'.[].id\' or --jq \'.[] | select(.status == "active") | .id\'',
    });
  }
}

interface JqModule {
  raw(data: string | object, filter: string, flags?: string[]): Promise<string>;
}

/**
 * Loaded from node_modules at run time rather than bundled: its Emscripten loader needs the
 * CommonJS __dirname. (A require through createRequire is invisible to esbuild.)
 */
async function loadJq(): Promise<JqModule> {
  const { createRequire } = await import('node:module');
  const load = createRequire(import.meta.url);
  return load('jq-wasm') as JqModule;
}
