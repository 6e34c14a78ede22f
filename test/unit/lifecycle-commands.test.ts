// The lifecycle verbs of `simulate` (sandbox extensions): what they refuse before anything is
// sent, and the bodies they build for POST /sandbox/switch/messages.
import { describe, expect, it } from 'vitest';
import advice from '../../src/commands/simulate/advice.js';
import clock, { parseAdvance } from '../../src/commands/simulate/clock.js';
import expire from '../../src/commands/simulate/expire.js';
import increment from '../../src/commands/simulate/increment.js';
import { buildLifecycleBody } from '../../src/api/lifecycle-request.js';
import refund from '../../src/commands/simulate/refund.js';
import repeat from '../../src/commands/simulate/repeat.js';
import { UsageError } from '../../src/core/errors.js';
import { testContext } from '../helpers/context.js';
import { runCommand } from '../helpers/parse.js';
import type { AnyCommand } from '../../src/contract/command.js';

describe('lifecycle bodies', () => {
  it('a linked message names its original and carries amount, currency, forward and --set', () => {
    expect(buildLifecycleBody({ message: 'increment', originalTx: 't1', amount: '1,250.50', currency: '840', forward: true, set: ['43=HOTEL'] })).toEqual({
      message: 'increment', originalTransactionId: 't1', amount: 1250.5, currency: '840', responseMode: 'forward', overrides: { 43: 'HOTEL' },
    });
    expect(buildLifecycleBody({ message: 'completion', originalTx: 't1', amount: 900 })).toEqual({ message: 'completion', originalTransactionId: 't1', amount: 900 });
  });

  it('an advice has the card fields of an authorization and the network decision', () => {
    expect(buildLifecycleBody({ message: 'advice', card: 'c1', amount: 80, channel: 'atm', networkCode: '51' })).toEqual({
      message: 'advice', processingFlow: 'purchase', amount: 80, channel: 'atm', cardId: 'c1', networkResponseCode: '51',
    });
  });

  it.each([
    [{ message: 'refund', amount: 1 }, /a refund needs the original: --original-tx/],
    [{ message: 'refund', originalTx: 't', amount: 1, card: 'c' }, /--card is not used by a refund/],
    [{ message: 'increment', originalTx: 't' }, /--amount is required/],
    [{ message: 'increment', originalTx: 't', amount: 1, networkCode: '00' }, /--network-code is only for advices/],
    [{ message: 'advice', amount: 1, card: 'c', networkCode: 'yes' }, /invalid --network-code "YES"/],
    [{ message: 'advice', amount: 1, card: 'c', originalTx: 't' }, /--original-tx is not used by an advice/],
  ] as const)('%j is a usage error', (input, message) => {
    expect(() => buildLifecycleBody(input)).toThrow(UsageError);
    expect(() => buildLifecycleBody(input)).toThrow(message);
  });
});

describe('lifecycle verbs refuse before any request', () => {
  it.each<[AnyCommand, string[], RegExp]>([
    [increment, ['--amount', '10'], /an increment needs the original: --original-tx/],
    [refund, ['--original-tx', 't1', '--amount', 'ten'], /invalid --amount/],
    [advice, ['--amount', '10'], /a card is required/],
    [repeat, [], /--tx is required/],
    [expire, [], /--original-tx is required/],
    [clock, ['--advance', 'next week'], /invalid --advance "next week"/],
  ])('%#: %j', async (command, argv, message) => {
    await expect(runCommand(command, testContext(), argv)).rejects.toThrow(message);
  });

  it('--advance takes s, m, h and d up to a year', () => {
    expect([parseAdvance('90s'), parseAdvance('30m'), parseAdvance('169h'), parseAdvance('7d'), parseAdvance('1.5h')]).toEqual([90, 1800, 608_400, 604_800, 5400]);
    expect(() => parseAdvance('400d')).toThrow(UsageError);
    expect(() => parseAdvance('0s')).toThrow(UsageError);
  });
});
