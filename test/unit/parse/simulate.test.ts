// `simulate …`: argv → the input each verb's run() gets, or the usage error, before any request.
import { expect } from 'vitest';
import { join } from 'node:path';
import advice from '../../../src/commands/simulate/advice.js';
import authorization from '../../../src/commands/simulate/authorization.js';
import clock from '../../../src/commands/simulate/clock.js';
import complete from '../../../src/commands/simulate/complete.js';
import expire from '../../../src/commands/simulate/expire.js';
import financial from '../../../src/commands/simulate/financial.js';
import increment from '../../../src/commands/simulate/increment.js';
import load from '../../../src/commands/simulate/load.js';
import refund from '../../../src/commands/simulate/refund.js';
import repeat from '../../../src/commands/simulate/repeat.js';
import reversal from '../../../src/commands/simulate/reversal.js';
import run from '../../../src/commands/simulate/run.js';
import { parseTable } from '../../helpers/parse-table.js';

const SCENARIO = join(import.meta.dirname, '../../../examples/scenarios/auth-then-reversal.yaml');

parseTable('simulate authorization', authorization, {
  good: [
    [['--card', 'c1', '--amount', '1,500.00', '--channel', 'pos', '--expect-approved'], { input: { intent: 'authorization', card: 'c1', amount: '1,500.00', channel: 'pos', flow: 'purchase' }, expectApproved: true }],
    // Asked for on a terminal, refused by run() otherwise: not a parse error.
    [[], { input: { intent: 'authorization' } }],
    [['--pan', '4111111111111111', '--expiry', '2912', '--account', '0123', '--amount', '1'], { input: { pan: '4111111111111111', expiry: '2912', account: '0123' } }],
  ],
  bad: [
    [['--card', 'c1', '--amount', 'ten'], /^invalid --amount/],
    [['--card', 'c1', '--pan', '4111111111111111', '--amount', '1'], /give either --card or --pan\/--expiry\/--account, not both/],
    [['--pan', '4111111111111111', '--amount', '1'], /--expiry and --account are required with --pan/],
    [['--card', 'c1', '--amount', '1', '--original-tx', 't1'], /--original-tx is only for reversals/],
    [['--card', 'c1', '--amount', '1', '--set', '4=12'], /field 4 is 12 digits/],
    [['--card', 'c1', '--amount', '1', '--currency', 'XXX'], /^invalid --currency/],
  ],
});

parseTable('simulate financial', financial, {
  good: [[['--card', 'c1', '--amount', '10'], { input: { intent: 'financial', card: 'c1', amount: '10' } }]],
  bad: [[['--card', 'c1', '--amount', '10', '--date', 'yesterday'], /--date/]],
});

parseTable('simulate reversal', reversal, {
  good: [
    [['--original-tx', 't1'], { input: { intent: 'reversal', originalTx: 't1' } }],
    [['--original-stan', '12', '--original-rrn', 'ABCDEF123456', '--amount', '5'], { input: { originalStan: '12', originalRrn: 'ABCDEF123456' } }],
  ],
  bad: [
    [['--amount', '5'], /a reversal needs the original/],
    [['--original-tx', 't1', '--card', 'c1'], /--card is not used by a reversal/],
    [['--original-stan', '12', '--amount', '5'], /--original-stan and --original-rrn go together/],
  ],
});

parseTable('simulate increment', increment, {
  good: [[['--original-tx', 't1', '--amount', '250.00', '--forward'], { input: { message: 'increment', originalTx: 't1', amount: '250.00', forward: true } }]],
  bad: [[['--amount', '10'], /an increment needs the original: --original-tx/], [['--original-tx', 't1'], /--amount is required/]],
});

parseTable('simulate complete', complete, {
  // Without --amount a completion captures what the original holds (read by run()).
  good: [[['--original-tx', 't1'], { input: { message: 'completion', originalTx: 't1' } }]],
  bad: [[[], /a completion needs the original/], [['--original-tx', 't1', '--amount', 'x'], /^invalid --amount/]],
});

parseTable('simulate refund', refund, {
  good: [[['--original-tx', 't1', '--amount', '5', '--messages'], { input: { message: 'refund', amount: '5' }, messages: true }]],
  bad: [[['--original-tx', 't1', '--amount', 'ten'], /^invalid --amount/]],
});

parseTable('simulate advice', advice, {
  good: [[['--card', 'c1', '--amount', '80', '--network-code', '51'], { input: { message: 'advice', card: 'c1', networkCode: '51' } }]],
  bad: [[['--amount', '10'], /a card is required/], [['--card', 'c', '--amount', '1', '--network-code', 'yes'], /invalid --network-code "YES"/]],
});

parseTable('simulate repeat', repeat, {
  good: [[['--tx', ' t1 ', '--forward'], { tx: 't1', forward: true }]],
  bad: [[[], /^--tx is required/]],
});

parseTable('simulate expire', expire, {
  good: [[['--original-tx', 't1'], { originalTx: 't1' }]],
  bad: [[[], /^--original-tx is required/]],
});

parseTable('simulate clock', clock, {
  good: [[[], { seconds: undefined }], [['--advance', '169h'], { seconds: 608_400 }]],
  bad: [[['--advance', 'next week'], /^invalid --advance "next week"/], [['--advance', '400d'], /^invalid --advance/]],
});

parseTable('simulate run', run, {
  good: [
    [[SCENARIO, '--set', 'card=c1'], { file: SCENARIO, vars: { card: 'c1' }, scenario: { steps: expect.any(Array) } }],
    [['-'], { file: '-', vars: {} }],
  ],
  bad: [[[SCENARIO, '--set', 'card'], /^invalid --set "card": expected NAME=VALUE/], [['/no/such/scenario.yaml'], /^cannot read scenario \/no\/such\/scenario.yaml: ENOENT/]],
});

parseTable('simulate load', load, {
  good: [
    [['--rate', '50/s', '--card', 'c1', '--amount', '10'], { shape: { kind: 'rate', perSecond: 50 }, cards: { given: ['c1'] }, channels: ['pos'] }],
    [['--concurrency', '8', '--count', '100', '--cards-from-list', '20', '--amount', '1'], { shape: { kind: 'concurrency', senders: 8 }, bounds: { count: 100 }, cards: { fromList: 20 } }],
  ],
  bad: [
    [['--card', 'c1'], /give either --rate \(open loop\) or --concurrency/],
    [['--rate', '50/s'], /give the cards: --card ID/],
    [['--rate', '50/s', '--card', 'c1', '--cards-from-list', '2'], /give either --card or --cards-from-list, not both/],
    [['--rate', '50/s', '--card', 'c1', '--amount', 'x'], /^invalid --amount/],
    [['--rate', '50/s', '--card', 'c1', '--duration', '2h'], /longer than the limit of 1h/],
  ],
});
