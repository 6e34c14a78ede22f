// `webhook exchanges` and `webhook replay`: argv → the input run() gets, or the usage error,
// before anything is read or sent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import exchanges from '../../../src/commands/webhook/exchanges.js';
import replay from '../../../src/commands/webhook/replay.js';
import show from '../../../src/commands/tx/show.js';
import { parseTable } from '../../helpers/parse-table.js';
import { scratchDir } from '../../helpers/dirs.js';

// A scenario file already there: refused before anything is read from the sandbox, unless --force.
const taken = join(scratchDir(), 'taken.yaml');
writeFileSync(taken, 'name: kept\n');

const now = new Date('2026-11-22T12:00:00Z');

parseTable('webhook exchanges', exchanges, {
  now,
  good: [
    [[], { query: { tx: [], failed: false }, all: false }],
    [['--tx', ' t1 ', '--tx', 't2', '--failed', '--since', '30m', '--limit', '50'], { query: { tx: ['t1', 't2'], failed: true, since: new Date('2026-11-22T11:30:00Z') }, limit: { text: '50' } }],
    [['--as-scenario', ' out.yaml ', '--keep-spacing', '--force'], { query: { scenario: { file: 'out.yaml', keepSpacing: true, force: true } } }],
    [['--as-scenario', taken, '--force'], { query: { scenario: { file: taken, force: true } } }],
  ],
  bad: [
    [['--keep-spacing'], /^--keep-spacing goes with --as-scenario/],
    [['--force'], /^--force goes with --as-scenario/],
    [['--as-scenario', ' '], /^--as-scenario needs a file name/],
    [['--as-scenario', taken], /already exists; refusing to overwrite$/],
    [['--since', 'yesterday'], /^invalid --since "yesterday"/],
    [['--all', '--page', '2'], /^--all and --page cannot be used together/],
  ],
});

parseTable('webhook replay', replay, {
  good: [
    [[' wx_1 '], { id: 'wx_1', keepTimestamp: false }],
    [['wx_1', '--to', 'http://127.0.0.1:4021/hook', '--keep-timestamp'], { id: 'wx_1', to: 'http://127.0.0.1:4021/hook', keepTimestamp: true }],
  ],
  bad: [
    [[' '], /^an exchange id is required/],
    [['wx_1', '--to', 'not a url'], /^invalid --to "not a url"/],
    [['wx_1', '--to', 'ftp://127.0.0.1/'], /^invalid --to/],
  ],
});

parseTable('tx show --exchanges', show, {
  good: [[['t1', '--exchanges'], { id: 't1', opts: { exchanges: true } }]],
});
