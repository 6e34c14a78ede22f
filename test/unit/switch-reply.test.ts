// The rule of response MTIs, once for both sides (reply.ts): a request is answered by the
// response of the message it is or repeats (ISO 8583: 0101 → 0110, 0421 → 0430), and a repeat
// also by its own response (0111), which the sandbox has always accepted.
import { describe, expect, it } from 'vitest';
import { answerMtisOf, buildResponse, firstMtiOf, isRepeatMti, repeatMtiOf, sameAnswer, validateReply } from '../../src/webhook-protocol/reply.js';

const request = (mti: string) => ({ '0': mti, '3': '000000', '4': '000000010000', '11': '000042', '37': '633114000042', '49': '566' });

describe('response MTIs', () => {
  it.each([
    ['0100', ['0110']], ['0101', ['0110', '0111']], ['0200', ['0210']], ['0201', ['0210', '0211']],
    ['0120', ['0130']], ['0121', ['0130', '0131']], ['0220', ['0230']], ['0221', ['0230', '0231']],
    ['0420', ['0430']], ['0421', ['0430', '0431']],
  ])('%s is answered by %j', (mti, answers) => {
    expect(answerMtisOf(mti)).toEqual(answers);
    for (const answer of answers) expect(validateReply(request(mti), { ...request(mti), '0': answer, '39': '00' })).toMatchObject({ ok: true });
    const other = mti.startsWith('04') ? '0110' : '0430';
    expect(validateReply(request(mti), { ...request(mti), '0': other, '39': '00' })).toEqual({ ok: false, reason: `the webhook reply's MTI is "${other}", expected ${answers.join(' or ')}` });
  });

  it('a response built for a repeat has the ISO MTI', () => {
    expect(buildResponse(request('0101'), '00')['0']).toBe('0110');
    expect(buildResponse(request('0421'), '00')['0']).toBe('0430');
    expect(buildResponse(request('0100'), '00')['0']).toBe('0110');
  });

  it('a repeat and the message it repeats', () => {
    expect(['0101', '0121', '0421', '0103'].every(isRepeatMti)).toBe(true);
    expect(['0100', '0110', '0420', '0102', '01'].some(isRepeatMti)).toBe(false);
    expect(['0100', '0120', '0220', '0420'].map(repeatMtiOf)).toEqual(['0101', '0121', '0221', '0421']);
    expect(['0101', '0421', '0100'].map(firstMtiOf)).toEqual(['0100', '0420', '0100']);
  });
});

describe('sameAnswer: a duplicate or a repeat answered as the first time', () => {
  it.each<[Record<string, string>, Record<string, string>, boolean]>([
    [{ 39: '00', 38: 'A1B2C3', 4: '000000001000' }, { 39: '00', 38: 'A1B2C3', 4: '000000001000' }, true],
    [{ 39: '00', 38: 'A1B2C3' }, { 39: '00', 38: 'ZZZZZZ' }, false],
    [{ 39: '10', 4: '000000000500' }, { 39: '10', 4: '000000000400' }, false],
    [{ 39: '05' }, { 39: '51' }, false],
    [{ 39: '05' }, { 39: '05', 11: '000002' }, true],
  ])('%j and %j: %s', (first, second, same) => {
    expect(sameAnswer(first, second)).toBe(same);
  });
});
