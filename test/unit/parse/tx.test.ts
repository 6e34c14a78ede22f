// `tx …` and `history`: argv → the input run() gets (relative times resolved against the moment
// the command line was read), or the usage error, before anything is read.
import history from '../../../src/commands/history.js';
import list from '../../../src/commands/tx/list.js';
import show from '../../../src/commands/tx/show.js';
import summary from '../../../src/commands/tx/summary.js';
import tail from '../../../src/commands/tx/tail.js';
import { parseTable } from '../../helpers/parse-table.js';

const now = new Date('2026-11-22T12:00:00Z');

parseTable('tx list', list, {
  now,
  good: [
    [[], { query: {}, all: false, wide: false }],
    [['--status', 'failed', '--since', '24h', '--merchant', ' M1 ', '--limit', '50', '--page', '2', '--wide'], {
      query: { transactionStatus: 'failed', merchantId: 'M1', since: new Date('2026-11-21T12:00:00Z') }, limit: { text: '50' }, page: 2, wide: true,
    }],
    [['--all', '--until', '2026-11-20'], { query: { until: new Date('2026-11-20T00:00:00Z') }, all: true }],
  ],
  bad: [
    [['--since', 'yesterday'], /^invalid --since "yesterday"/],
    [['--since', '1h', '--until', '2h'], /^--since must be before --until$/],
    [['--merchant', ' '], /^--merchant needs a value$/],
    [['--all', '--page', '2'], /^--all and --page cannot be used together$/],
    [['--page', 'x'], /^invalid --page/],
    [['--status', 'lost'], /^invalid --status "lost"/],
  ],
});

parseTable('tx tail', tail, {
  now,
  good: [
    [[], { filter: {}, interval: 2000 }],
    [['--interval', '0.5', '--since', '10m', '--limit', '50', '--wide'], { filter: { since: new Date('2026-11-22T11:50:00Z') }, interval: 500, limit: '50', wide: true }],
  ],
  bad: [[['--interval', '4000'], /^invalid --interval "4000"/], [['--until', 'soon'], /^invalid --until "soon"/]],
});

parseTable('tx summary', summary, {
  now,
  good: [
    // The last 24 hours by default.
    [[], { filter: { since: new Date('2026-11-21T12:00:00Z') }, by: 'channel' }],
    [['--since', '7d', '--by', 'hour'], { filter: { since: new Date('2026-11-15T12:00:00Z') }, by: 'hour' }],
  ],
  bad: [[['--by', 'day'], /^invalid --by "day"/], [['--since', 'x'], /^invalid --since "x"/]],
});

parseTable('tx show', show, {
  good: [[[' t1 '], { id: 't1' }], [['t1', '--lifecycle'], { id: 't1', opts: { lifecycle: true } }]],
  bad: [[[' '], /^a transaction id is required$/]],
});

parseTable('history', history, {
  now,
  good: [
    [[], { query: { since: undefined, card: undefined }, all: true }],
    [['--since', '24h', '--card', 'c1', '--limit', '5'], { query: { since: new Date('2026-11-21T12:00:00Z'), card: 'c1' }, limit: 5 }],
  ],
  bad: [[['--since', 'yesterday'], /^invalid --since "yesterday": expected/], [['--limit', '0'], /^invalid --limit "0": expected a whole number from 1$/]],
});
