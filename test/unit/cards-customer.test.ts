// cards customer update: the changes a command line makes, merged into the full body the API
// requires, and the update sent for the version read.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import customerUpdate, { mergeCustomer } from '../../src/commands/cards/customer/update.js';
import { RejectedError, UsageError } from '../../src/core/errors.js';
import { ScriptedPrompter } from '../../src/core/prompter.js';
import { testContext } from '../helpers/context.js';
import { scratchDir } from '../helpers/dirs.js';
import { parseCommand, runCommand } from '../helpers/parse.js';

const BASE = 'http://127.0.0.1:4010';

describe('customer update', () => {
  /** The changes `cards customer update` makes of a command line before anything is read or sent. */
  const customerChanges = async (_ctx: unknown, argv: string[]) => {
    const input = await parseCommand(customerUpdate, ['c1', ...argv]);
    return input.bulk ? {} : input.changes!;
  };
  const card = {
    customer: {
      uniqueId: 'u', firstName: 'Ada', middleName: '', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678',
      honorific: '', gender: '', dateOfBirth: '1990-01-02T00:00:00.000Z',
      address: { line1: '1 Marina', line2: '', city: 'Lagos', state: 'LA', country: 'NG', postalCode: '100001' },
    },
  };

  it('merges only the changed fields into the full body', async () => {
    const changes = await customerChanges(testContext(), ['--email', 'new@example.com', '--city', 'Abuja']);
    const { body, changed } = mergeCustomer(card, changes);
    expect(changed).toEqual(['emailAddress', 'address.city']);
    expect(body).toEqual({
      firstName: 'Ada', middleName: '', lastName: 'Obi', emailAddress: 'new@example.com', phoneNumber: '+2348012345678', dateOfBirth: '1990-01-02T00:00:00.000Z',
      address: { line1: '1 Marina', line2: '', city: 'Abuja', state: 'LA', country: 'NG', postalCode: '100001' },
    });
  });

  it('takes a file ({customer: …} or flat), flags winning', async () => {
    const file = join(scratchDir(), 'customer.json');
    writeFileSync(file, JSON.stringify({ customer: { lastName: 'Obi-Eze', emailAddress: 'file@example.com' } }));
    const changes = await customerChanges(testContext(), ['--from-file', file, '--email', 'flag@example.com']);
    expect(changes).toEqual({ lastName: 'Obi-Eze', emailAddress: 'flag@example.com' });
    writeFileSync(file, JSON.stringify({ emial: 'x' }));
    await expect(customerChanges(testContext(), ['--from-file', file])).rejects.toBeInstanceOf(UsageError);
  });

  it('on a terminal with nothing given, asks each field with its current value', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(BASE);
    pool.intercept({ path: '/institutions/cards?cardId=c1&limit=1', method: 'GET' }).reply(200, { statusCode: 200, message: 'ok', data: [{ id: 'c1', ...card }] });
    let sent: unknown;
    pool.intercept({ path: '/institutions/cards/c1/customer', method: 'PUT' }).reply(200, (request) => {
      sent = JSON.parse(String(request.body));
      return { statusCode: 200, message: 'ok', data: { id: 'c1', ...card } };
    });
    // One answer per customer field, in flag order; unchanged ones are given back as they were.
    const answers = ['Ada', '', 'Obi', 'ada.new@example.com', '+2348012345678', '1990-01-02', '1 Marina', '', 'Ikeja', 'LA', 'NG', '100001'];
    const prompter = new ScriptedPrompter(answers);
    const ctx = testContext({ tty: true, prompter, dispatcher: agent, env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' } });
    const update = (await import('../../src/commands/cards/customer/update.js')).default;
    await runCommand(update, ctx, ['c1']);
    expect(prompter.asked).toHaveLength(12);
    expect(sent).toMatchObject({ emailAddress: 'ada.new@example.com', address: { city: 'Ikeja', line1: '1 Marina' }, dateOfBirth: '1990-01-02T00:00:00.000Z' });
    expect(ctx.io.stderrText()).toMatch(/updated \(emailAddress, address.city\)/);
  });

  it('sends the change for the version read (If-Match); a change made meanwhile is a CONFLICT (exit 5) with a hint, a lost answer of its own is not', async () => {
    const run = async (answers: Array<'lost' | 'conflict' | 'ok'>, afterConflict: Record<string, unknown>) => {
      const agent = new MockAgent();
      agent.disableNetConnect();
      const pool = agent.get(BASE);
      pool.intercept({ path: '/institutions/cards?cardId=c1&limit=1', method: 'GET' }).reply(200, { statusCode: 200, message: 'ok', data: [{ id: 'c1', __v: 3, ...card }] });
      const versions: unknown[] = [];
      for (const answer of answers) {
        const put = pool.intercept({ path: '/institutions/cards/c1/customer', method: 'PUT' });
        if (answer === 'lost') {
          put.replyWithError(new Error('socket hang up'));
        } else {
          put.reply(answer === 'ok' ? 200 : 409, (request) => {
            versions.push((request.headers as Record<string, string>)['if-match']);
            return answer === 'ok'
              ? { statusCode: 200, message: 'ok', data: { id: 'c1', __v: 4, ...card } }
              : { statusCode: 409, message: 'card c1 has changed', error: 'CONFLICT', details: { version: 4 } };
          });
        }
      }
      pool.intercept({ path: '/institutions/cards?cardId=c1&limit=1', method: 'GET' }).reply(200, { statusCode: 200, message: 'ok', data: [{ id: 'c1', __v: 4, customer: { ...card.customer, ...afterConflict } }] });
      const ctx = testContext({ dispatcher: agent, env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't' } });
      const update = (await import('../../src/commands/cards/customer/update.js')).default;
      const outcome = await runCommand(update, ctx, ['c1', '--email', 'mine@example.com']).then(() => undefined, (error) => error);
      return { outcome, versions, ctx };
    };

    const plain = await run(['ok'], {});
    expect(plain.outcome).toBeUndefined();
    expect(plain.versions).toEqual(['"3"']);

    const raced = await run(['conflict'], { phoneNumber: '+2348000000009' });
    expect(raced.outcome).toBeInstanceOf(RejectedError);
    expect(raced.outcome).toMatchObject({ exitCode: 5, code: 'CONFLICT', status: 409 });
    expect(raced.outcome.message).toMatch(/changed by someone else after it was read \(version 3, now 4\)/);
    expect(raced.outcome.hint).toMatch(/run the same command again/);

    // The first attempt applied but its answer was lost; the retry meets the change it made.
    const lost = await run(['lost', 'conflict'], { emailAddress: 'mine@example.com' });
    expect(lost.outcome).toBeUndefined();
    expect(lost.ctx.io.stderrText()).toMatch(/updated \(emailAddress\)/);
  });

  it('needs a date of birth when the card has none', () => {
    expect(() => mergeCustomer({ customer: { ...card.customer, dateOfBirth: null } }, { city: 'x' })).toThrow(/--birth-date/);
  });
});
