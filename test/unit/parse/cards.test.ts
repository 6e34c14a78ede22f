// `cards …` (but create): argv → the input each verb's run() gets, or the usage error, before
// anything is read or sent. Bulk flags are checked here too; the rows are read by run().
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import activate from '../../../src/commands/cards/activate.js';
import update from '../../../src/commands/cards/customer/update.js';
import deactivate from '../../../src/commands/cards/deactivate.js';
import get from '../../../src/commands/cards/get.js';
import list from '../../../src/commands/cards/list.js';
import change from '../../../src/commands/cards/pin/change.js';
import reset from '../../../src/commands/cards/pin/reset.js';
import renew from '../../../src/commands/cards/renew.js';
import merge from '../../../src/commands/cards/report/merge.js';
import { parseTable } from '../../helpers/parse-table.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-parse-cards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const customer = file('customer.json', JSON.stringify({ customer: { lastName: 'Obi-Eze' } }));
const unknownKey = file('unknown.json', JSON.stringify({ emial: 'x' }));
const run = { run: { verb: 'deactivate', input: `sha256:${'aa'.repeat(32)}`, shard: '1/1', source: 'ids.txt' } };
const report = file('report.ndjson', [run, { row: 1, id: 'a', outcome: 'done' }, { end: { rows: 1 } }].map((l) => JSON.stringify(l)).join('\n') + '\n');
const now = new Date('2026-11-22T12:00:00Z');

parseTable('cards list', list, {
  good: [
    [[], { query: {}, all: false }],
    [['--search', ' ada ', '--limit', '50', '--page', '2'], { query: { search: 'ada' }, limit: { text: '50' }, page: 2 }],
    [['--all', '--card-id', 'c1'], { query: { cardId: 'c1' }, all: true }],
  ],
  bad: [[['--search', ' '], /^--search needs some text$/], [['--card-id', ' '], /^--card-id needs a card id$/], [['--all', '--page', '2'], /^--all and --page/], [['--page', '0'], /^invalid --page/]],
});

parseTable('cards get', get, {
  good: [[[' c1 '], { cardId: 'c1' }]],
  bad: [[['a b'], /^invalid CARD_ID "a b"/], [[' '], /^missing CARD_ID$/]],
});

parseTable('cards renew', renew, {
  now,
  good: [
    [['c1', '--expiration', '202912'], { target: { cardId: 'c1' }, expiration: '202912', renewReason: 'RENEW' }],
    // Asked for on a terminal, a usage error without one.
    [['c1', '--reason', ' REPLACE '], { target: { cardId: 'c1' }, expiration: undefined, renewReason: 'REPLACE' }, { tty: true }],
    [['--from-file', 'ids.txt'], { target: { bulk: true }, expiration: undefined }],
    [['--from-file', 'ids.txt', '--expiration', '203006', '--shard', '1/4'], { target: { bulk: true }, expiration: '203006' }],
  ],
  bad: [
    [['c1', '--expiration', '202611'], /in the future/],
    [['c1', '--expiration', '2029-12'], /--expiration/],
    [['c1', '--reason', ' '], /^--reason needs a value/],
    [['c1'], /^missing --expiration$/],
    [['c1', '--no-input'], /^missing --expiration$/, { tty: true }],
    [['c1', '--from-file', 'ids.txt'], /^give a card id or --from-file, not both$/],
    [['c1', '--shard', '1/2'], /^--shard need --from-file/],
    [['--from-file', 'ids.txt', '--shard', '5/4'], /^invalid --shard "5\/4"/],
    [['--from-file', 'ids.txt', '--concurrency', '0'], /^invalid --concurrency/],
  ],
});

parseTable('cards pin change', change, {
  good: [[['c1', '--pin-stdin'], { cardId: 'c1', pan: undefined, opts: { pinStdin: true } }], [['c1', '--pan', '4111 1111 1111 1111'], { pan: '4111111111111111' }]],
  bad: [[['c1', '--pan', '4111111111111112'], /fails the Luhn check/], [['-x'], /unknown option/]],
});

parseTable('cards pin reset', reset, {
  good: [[['c1', '--reason', 'lost'], { cardId: 'c1', opts: { reason: 'lost' } }]],
  bad: [[['c1', '--pan', '12'], /^invalid --pan/], [['??'], /^invalid CARD_ID/]],
});

parseTable('cards customer update', update, {
  good: [
    [['c1', '--email', 'new@example.com', '--city', 'Abuja'], { cardId: 'c1', changes: { emailAddress: 'new@example.com', address: { city: 'Abuja' } } }],
    [['c1', '--from-file', customer], { changes: { lastName: 'Obi-Eze' } }],
    // Nothing given: asked on a terminal, refused by run() otherwise; stdin is read by run().
    [['c1'], { cardId: 'c1', changes: {} }],
    [['c1', '--from-file', '-'], { cardId: 'c1', opts: { fromFile: '-' } }],
    [['--from-file', 'fixes.csv', '--report', 'r.ndjson'], { bulk: true }],
  ],
  bad: [
    [['c1', '--email', 'nope'], /^invalid --email/],
    [['c1', '--from-file', unknownKey], /emial/],
    [['c1', '--from-file', join(dir, 'none.json')], /cannot read the file \(no such file\)/],
    [['c1', '--report', 'r.ndjson'], /^--report need --from-file without a card id/],
    [['--from-file', 'fixes.csv', '--email', 'a@example.com'], /^--email describe one card/],
  ],
});

parseTable('cards activate', activate, {
  good: [[['c1'], { target: { cardId: 'c1' }, reason: undefined }], [['--where', 'status=suspended,search=ACME', '--reason', ' ok '], { target: { bulk: true }, reason: 'ok' }]],
  bad: [
    [['--where', 'colour=red'], /^invalid --where "colour=red"/],
    [['--where', 'status=lost'], /^invalid --where status "lost"/],
    [['--where', 'status=active', '--shard', '1/2'], /^--resume and --shard need the same rows/],
    [['--from-file', 'a', '--where', 'status=active'], /^give --from-file or --where, not both$/],
  ],
});

parseTable('cards deactivate', deactivate, {
  good: [
    [['c1', '--yes', '--reason', ' stolen '], { target: { cardId: 'c1' }, reason: 'stolen' }],
    // Asked on a terminal; --dry-run asks nothing.
    [['c1'], { target: { cardId: 'c1' } }, { tty: true }],
    [['c1', '--dry-run'], { target: { cardId: 'c1' } }],
    [['--from-file', '-', '--concurrency', '16'], { target: { bulk: true } }],
  ],
  bad: [
    [[], /^missing CARD_ID$/],
    [['--from-file', '-', '--concurrency', 'many'], /^invalid --concurrency "many"/],
    [['c1'], /^deactivating card c1 needs confirmation and there is no terminal to ask on$/],
    [['c1', '--no-input'], /needs confirmation/, { tty: true }],
  ],
});

parseTable('cards report merge', merge, {
  good: [[[report], { merged: { counts: { rows: 1, done: 1 } }, out: undefined }]],
  bad: [[[join(dir, 'none.ndjson')], /^no such report: /], [[report, '--out', report], /is one of the reports to merge/], [[customer], /./]],
});
