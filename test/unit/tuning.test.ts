// bin/tuning.js sets V8 flags at run time. A flag this V8 did not know would not fail: V8 would
// print "Error: unrecognized flag" on stderr, in front of every command's own messages. This keeps
// that from happening unnoticed on the Node versions CI runs.
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const TUNING = fileURLToPath(new URL('../../bin/tuning.js', import.meta.url));

it('sets only flags this V8 knows, printing nothing, and undici still parses HTTP', async () => {
  const script = `
    import { createRequire } from 'node:module';
    import { setFlagsFromString } from 'node:v8';
    import { createServer } from 'node:http';
    await createRequire(import.meta.url)(${JSON.stringify(TUNING)}).loadTuned(async () => ({}));
    setFlagsFromString('--surely-not-a-v8-flag'); // the check below must be able to fail
    const { request } = await import('undici');
    const server = createServer((_req, res) => res.end('{"ok":true}')).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const res = await request('http://127.0.0.1:' + server.address().port + '/');
    process.stdout.write(await res.body.text());
    server.close();
  `;
  const result = await execa('node', ['--input-type=module', '-e', script], { reject: false, cwd: process.cwd() });
  expect(result.stderr.split('\n').filter(Boolean)).toEqual([
    'Error: unrecognized flag --surely-not-a-v8-flag',
    'Try --help for options',
  ]);
  expect(result.stdout).toBe('{"ok":true}');
  expect(result.exitCode).toBe(0);
});

it('a server (sandbox serve, webhook listen) runs without the client heap flags; every other command with all of them', async () => {
  const { createRequire } = await import('node:module');
  const { V8_FLAGS, flagsFor } = createRequire(import.meta.url)(TUNING) as { V8_FLAGS: string[]; flagsFor(argv: string[]): string[] };
  const server = V8_FLAGS.filter((flag) => flag !== '--semi-space-growth-factor=1' && flag !== '--heap-growing-percent=50');
  expect(server).toContain('--liftoff-only');
  expect(server.length).toBe(V8_FLAGS.length - 2);
  expect(flagsFor(['sandbox', 'serve', '--port', '0', '--memory'])).toEqual(server);
  expect(flagsFor(['--profile', 'dev', 'webhook', 'listen', '--json'])).toEqual(server);
  for (const argv of [['tx', 'list', '--all'], ['cards', 'deactivate', '--from-file', 'ids.txt'], ['sandbox', '--help'], ['simulate', 'load', '--rate', '10'], []]) {
    expect(flagsFor(argv), argv.join(' ')).toEqual(V8_FLAGS);
  }
});
