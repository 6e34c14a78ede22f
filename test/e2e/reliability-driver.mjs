// Runs many `cardctl cards create` invocations inside one Node process, through the built
// bundle's main() (argv parsing, context, HTTP client, PIN encryption: everything but process
// start-up, which would dominate 1,000 creations on a two-core machine).
//   node reliability-driver.mjs PREFIX COUNT CONCURRENCY -- <extra cardctl args>
// Environment: CARDCTL_BASE_URL, CARDCTL_TOKEN, CARDCTL_CONFIG_DIR, CARDCTL_DATA_DIR (both required:
// the audit journal of every creation goes to the data directory), PROGRAM.
// Prints one JSON line per invocation: {reference, exitCode, stdout, stderr}.
import { PassThrough, Readable } from 'node:stream';

const { main } = await import(new URL('../../dist/cli.js', import.meta.url).href);
const [prefix, countText, concurrencyText, separator, ...extra] = process.argv.slice(2);
if (!prefix || separator !== '--') throw new Error('usage: reliability-driver.mjs PREFIX COUNT CONCURRENCY -- ARGS');
const count = Number(countText);
const concurrency = Number(concurrencyText);

function io(stdin) {
  let out = '';
  let err = '';
  return {
    stdin: Readable.from([stdin]),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    colorEnabled: false,
    canPrompt: false,
    columns: undefined,
    out: (text) => void (out += text),
    err: (text) => void (err += text),
    text: () => ({ stdout: out, stderr: err }),
  };
}

const env = { ...process.env, CI: '1' };
if (!env.CARDCTL_CONFIG_DIR || !env.CARDCTL_DATA_DIR) throw new Error('reliability-driver.mjs: set CARDCTL_CONFIG_DIR and CARDCTL_DATA_DIR');

let next = 1;
async function lane() {
  for (;;) {
    const i = next++;
    if (i > count) return;
    const reference = `${prefix}-${String(i).padStart(4, '0')}`;
    const streams = io('4821\n');
    const argv = [
      'cards', 'create', '--program', env.PROGRAM, '--first-name', 'Ada', '--last-name', 'Obi', '--email', `ada${i}@example.com`,
      '--phone', '+2348012345678', '--account-number', '0123456789', '--account-type', 'savings', '--pin-stdin',
      '--reference', reference, '-o', 'json', ...extra,
    ];
    const exitCode = await main(argv, { io: streams, env, signal: new AbortController().signal });
    process.stdout.write(`${JSON.stringify({ reference, exitCode, ...streams.text() })}\n`);
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));
