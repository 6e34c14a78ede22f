// bin/tuning.js sets V8 flags at run time, each once the work it is for begins. A flag this V8 did
// not know would not fail: V8 would print "Error: unrecognized flag" on stderr, in front of every
// command's own messages. This keeps that from happening unnoticed on the Node versions CI runs.
import { execa } from 'execa';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { beginWork } from '../../src/core/tuning.js';

const TUNING = fileURLToPath(new URL('../../bin/tuning.js', import.meta.url));
const tuning = createRequire(import.meta.url)(TUNING) as {
  FLAGS_FOR_WORK: Record<string, string[]>;
  TUNER: symbol;
  tuner(setFlag: (flag: string) => void): (work: string) => void;
};

afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[tuning.TUNER];
});

it('sets only flags this V8 knows, printing nothing, and undici still parses HTTP', async () => {
  const script = `
    import { createRequire } from 'node:module';
    import { setFlagsFromString } from 'node:v8';
    import { createServer } from 'node:http';
    const tuning = createRequire(import.meta.url)(${JSON.stringify(TUNING)});
    await tuning.loadTuned(async () => ({}));
    for (const work of Object.keys(tuning.FLAGS_FOR_WORK)) globalThis[tuning.TUNER](work);
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

it('each kind of work sets its flags once, when it begins, and nothing else', () => {
  const set: string[] = [];
  (globalThis as Record<symbol, unknown>)[tuning.TUNER] = tuning.tuner((flag) => set.push(flag));
  expect(set).toEqual([]);
  beginWork('undici');
  beginWork('undici');
  expect(set).toEqual(tuning.FLAGS_FOR_WORK.undici);
  beginWork('manyRequests');
  beginWork('manyRequests');
  expect(set).toEqual([...tuning.FLAGS_FOR_WORK.undici!, ...tuning.FLAGS_FOR_WORK.manyRequests!]);
  beginWork('rowRun');
  beginWork('rowRun');
  expect(set).toEqual([...tuning.FLAGS_FOR_WORK.undici!, ...tuning.FLAGS_FOR_WORK.manyRequests!, ...tuning.FLAGS_FOR_WORK.rowRun!]);
  expect(Object.keys(tuning.FLAGS_FOR_WORK).sort()).toEqual(['manyRequests', 'rowRun', 'undici']);
});

it("a client's second request begins the work of many requests; a one-request command sets nothing", async () => {
  const set: string[] = [];
  (globalThis as Record<symbol, unknown>)[tuning.TUNER] = tuning.tuner((flag) => set.push(flag));
  const server = createServer((_req, res) => res.end('{"data":[]}')).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, getToken: async () => 't', retries: 0 });
    await client.request({ method: 'GET', path: '/institutions/cards' });
    expect(set).toEqual([]);
    await client.request({ method: 'GET', path: '/institutions/cards' });
    expect(set).toEqual(tuning.FLAGS_FOR_WORK.manyRequests);
  } finally {
    server.close();
  }
});
