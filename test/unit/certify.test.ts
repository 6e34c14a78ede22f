// The certification's grading (from what the sandbox recorded), its selection of checks and
// rules file, and its reports: JUnit well-formed with one test case per check, every report
// scrubbed of the secret and full card numbers.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SimulateResult, Transaction } from '../../src/api/schemas.js';
import { CHECK_NAMES } from '../../src/certify/checks.js';
import { approvedBy } from '../../src/certify/funds.js';
import { gradeAcknowledged, gradeDuplicate, gradeLatency, gradePartial, gradeRefusal, gradeReply, gradeRepeat } from '../../src/certify/grade.js';
import { parseRules, selectChecks } from '../../src/certify/options.js';
import { escapeXml, jsonReport, junitReport, markdownReport, scrub } from '../../src/certify/reports.js';
import { buildReport, type CheckResult } from '../../src/certify/runner.js';
import { elementsNamed, parseXml } from '../helpers/xml.js';

const PAN = '5399831234567895';

function answer(extra: Partial<SimulateResult> = {}, response: Record<string, string> = {}): SimulateResult {
  return {
    transactionId: 'tx1', mti: '0100', stan: '000001', rrn: '633117000001', responseCode: '00', responseMessage: 'Approved', transactionStatus: 'completed',
    request: { 0: '0100', 2: PAN, 4: '000000001000', 11: '000001', 37: '633117000001' },
    response: { 0: '0110', 39: '00', 4: '000000001000', ...response },
    duration: 20, webhook: { latencyMs: 12, timedOut: false }, ...extra,
  };
}
const lost = (failure: string) => answer({ responseCode: '96', webhook: { latencyMs: 10, timedOut: false, failure }, standIn: { decision: '96', reason: failure } });
const tx = (extra: Partial<Transaction>) => ({ mti: '0100', stan: '000001', rrn: '633117000001', responseCode: '00', originalMessage: { 2: PAN, 4: '000000001000' }, ...extra }) as Transaction;

describe('grading from what the sandbox recorded', () => {
  it('a reply: valid when the sandbox took it within the deadline; a decline is valid; rules may name the codes', () => {
    expect(gradeReply(answer(), { deadlineMs: 5000 }).verdict).toBe('pass');
    expect(gradeReply(answer({ responseCode: '05' }), { deadlineMs: 5000 }).verdict).toBe('pass');
    expect(gradeReply(answer({ responseCode: '05' }), { deadlineMs: 5000, expect: ['00'] })).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/rules expect 00/) });
    expect(gradeReply(lost("the webhook reply's MTI is \"0100\", expected 0110"), { deadlineMs: 5000 })).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/MTI/) });
    expect(gradeReply(answer({ webhook: { latencyMs: 5200, timedOut: false } }), { deadlineMs: 5000 }).verdict).toBe('fail');
    const { webhook: _w, ...notSent } = answer();
    expect(gradeReply(notSent, { deadlineMs: 5000 })).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/never reached the webhook/) });
  });

  it('a refusal: an error status or a decline passes; an approval by the webhook fails', () => {
    const approvedControl = answer();
    const declinedControl = answer({ responseCode: '05' });
    expect(gradeRefusal(lost('the webhook answered HTTP 401'), 'x', approvedControl).verdict).toBe('pass');
    expect(gradeRefusal(lost('the webhook answered HTTP 401'), 'x', declinedControl).verdict).toBe('pass');
    expect(gradeRefusal(answer({ responseCode: '05' }), 'x', approvedControl).verdict).toBe('pass');
    expect(gradeRefusal(answer(), 'a message signed with another secret', approvedControl)).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/^approved a message signed with another secret/) });
    // A handler that declines everything proves nothing by declining: it must refuse with a status.
    expect(gradeRefusal(answer({ responseCode: '05' }), 'a message with no signature', declinedControl)).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/correctly signed too.*non-2xx status \(401\)/) });
  });

  it('duplicates and repeats: alike, and the ISO response MTI', () => {
    expect(gradeDuplicate(answer(), tx({ repeats: [{ at: '', mti: '0100', responseCode: '00', agreed: true }] })).verdict).toBe('pass');
    expect(gradeDuplicate(answer(), tx({ repeats: [{ at: '', mti: '0100', responseCode: '05', agreed: false }] })).verdict).toBe('fail');
    // Two unusable answers are alike but answer nothing: failed, saying why.
    expect(gradeDuplicate(lost("the webhook reply's MTI is \"0100\", expected 0110"), tx({ repeats: [{ at: '', mti: '0100', responseCode: '', agreed: true }] })))
      .toMatchObject({ verdict: 'fail', reason: 'needs a replied authorization (the webhook reply\'s MTI is "0100", expected 0110)' });
    // The reason names the field that differed, from the answers' bodies.
    expect(gradeDuplicate(answer(), tx({ repeats: [{ at: '', mti: '0100', responseCode: '00', agreed: false }] }), ['{"0":"0110","38":"000001","39":"00"}', '{"0":"0110","38":"000002","39":"00"}']))
      .toMatchObject({ verdict: 'fail', reason: 'the two deliveries of one message were answered differently: field 38 [Authorization identification response] "000001" then "000002"' });
    expect(gradeRepeat(tx({ repeats: [{ at: '', mti: '0101', responseCode: '10', agreed: false, replyMti: '0110' }] }), ['{"39":"10","4":"000000000600"}', '{"39":"10","4":"000000000500"}']))
      .toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/^answered the repeat 0101 unlike the first time: field 4 \[.*\] "000000000600" then "000000000500"$/) });
    expect(gradeRepeat(tx({ repeats: [{ at: '', mti: '0101', responseCode: '00', agreed: true, replyMti: '0110' }] })).verdict).toBe('pass');
    expect(gradeRepeat(tx({ repeats: [{ at: '', mti: '0101', responseCode: '00', agreed: true, replyMti: '0111' }] }))).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/with 0111; the ISO answer is 0110/) });
    expect(gradeRepeat(tx({ mti: '0420', repeats: [{ at: '', mti: '0421', responseCode: '00', agreed: true, replyMti: '0430' }] })).verdict).toBe('pass');
    expect(gradeRepeat(tx({ repeats: [{ at: '', mti: '0101', responseCode: '05', agreed: false, replyMti: '0110' }] })).verdict).toBe('fail');
    expect(gradeRepeat(tx({ repeats: [{ at: '', mti: '0101', responseCode: '', agreed: false }] })).verdict).toBe('fail');
  });

  it('a correctly signed message refused as unauthenticated says what to check; a refusal check is not told so', () => {
    const hint = 'to a correctly signed message: check the HMAC is over the exact bytes received, keyed with the secret given here';
    expect(gradeReply(lost('the webhook answered HTTP 401'), { deadlineMs: 5000 }).reason).toBe(`the webhook answered HTTP 401 ${hint}`);
    expect(gradeReply(lost('the webhook answered HTTP 403'), { deadlineMs: 5000 }).reason).toBe(`the webhook answered HTTP 403 ${hint}`);
    expect(gradeReply(lost('the webhook answered HTTP 500'), { deadlineMs: 5000 }).reason).toBe('the webhook answered HTTP 500');
    expect(gradeAcknowledged(tx({ mti: '0120', advice: { acknowledged: false, attempts: 4, lastResult: 'the webhook answered HTTP 401' } }), 5000).reason)
      .toBe(`the 0120 was not acknowledged within 5 s (4 attempts; last: the webhook answered HTTP 401 ${hint})`);
    expect(gradeRefusal(lost('the webhook answered HTTP 401'), 'a message signed with another secret', answer()).reason).toBe('refused: the webhook answered HTTP 401');
  });

  it('a check that needs an approval first fails with the reason the answer was not one; a decline the rules call policy skips it', () => {
    expect(approvedBy('an approved purchase (0200)', answer(), 5000)).toMatchObject({ responseCode: '00' });
    expect(approvedBy('an approved purchase (0200)', lost('the webhook reply\'s content type is "text/plain", expected application/json'), 5000))
      .toMatchObject({ verdict: 'fail', reason: 'needs an approved purchase (0200); the handler\'s answer was not one (the webhook reply\'s content type is "text/plain", expected application/json)' });
    expect(approvedBy('an approved authorization', answer({ responseCode: '05' }, { 39: '05' }), 5000))
      .toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/^needs an approved authorization; the handler declined it 05 .*--rules/) });
    expect(approvedBy('an approved authorization', answer({ responseCode: '05' }, { 39: '05' }), 5000, (code) => code === '05'))
      .toMatchObject({ verdict: 'skip', reason: expect.stringMatching(/its policy by the rules file/) });
    // An unusable answer is never policy.
    expect(approvedBy('an approved authorization', lost('the webhook answered HTTP 500'), 5000, () => true)).toMatchObject({ verdict: 'fail' });
  });

  it('an advice: acknowledged within the window, or failed with the attempts and the last result', () => {
    expect(gradeAcknowledged(tx({ mti: '0120', advice: { acknowledged: true, attempts: 2, lastResult: 'acknowledged (00)' } }), 5000).verdict).toBe('pass');
    expect(gradeAcknowledged(tx({ mti: '0120', advice: { acknowledged: false, attempts: 3, lastResult: 'the webhook answered HTTP 500' } }), 5000))
      .toMatchObject({ verdict: 'fail', reason: 'the 0120 was not acknowledged within 5 s (3 attempts; last: the webhook answered HTTP 500)' });
  });

  it('partial approval: skipped when not used; field 4 above 0 and at most the amount asked', () => {
    expect(gradePartial(answer()).verdict).toBe('skip');
    expect(gradePartial(answer({ responseCode: '10' }, { 39: '10', 4: '000000000600' })).verdict).toBe('pass');
    expect(gradePartial(answer({ responseCode: '10' }, { 39: '10', 4: '000000000000' })).verdict).toBe('fail');
  });

  it('latency: replies, no timeouts, p99 under the deadline', () => {
    expect(gradeLatency({ requests: 15, replies: 15, timeouts: 0, p50: 4, p99: 20, max: 21 }, 5000).verdict).toBe('pass');
    expect(gradeLatency({ requests: 15, replies: 15, timeouts: 2, p50: 4, p99: 5000, max: 5000 }, 5000).verdict).toBe('fail');
    expect(gradeLatency({ requests: 15, replies: 0, timeouts: 0 }, 5000).verdict).toBe('fail');
    // One unusable reply in the run: not every authorization was answered.
    expect(gradeLatency({ requests: 15, replies: 14, timeouts: 0, p50: 4, p99: 20, max: 21 }, 5000)).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/^1 of 15 got no usable reply/) });
  });
});

describe('docs/webhook-protocol.md', () => {
  it('its Certification section names every check, in order', () => {
    const doc = readFileSync(new URL('../../docs/webhook-protocol.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Certification'));
    const named = [...section.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((match) => match[1]);
    expect(named).toEqual(CHECK_NAMES);
  });
});

describe('choosing checks', () => {
  it('--only and --skip take known names; an unknown one is a usage error listing the names', () => {
    expect(selectChecks(undefined, undefined)).toEqual(CHECK_NAMES);
    expect(selectChecks('latency,refund', undefined)).toEqual(['latency', 'refund']);
    expect(selectChecks(undefined, 'latency')).not.toContain('latency');
    expect(() => selectChecks('nope', undefined)).toThrow(/unknown check "nope"; the checks are: authorization-reply, refuse-wrong-secret/);
    expect(() => selectChecks('latency', 'latency')).toThrow(/no check left/);
  });

  it('a rules file maps check names to codes ("one of")', async () => {
    expect(await parseRules('expect: { authorization-reply: ["00", "05"], refund: "00" }', 'r.yaml')).toEqual({ 'authorization-reply': ['00', '05'], refund: ['00'] });
    await expect(parseRules('expect: { nope: "00" }', 'r.yaml')).rejects.toThrow(/unknown check "nope"/);
    await expect(parseRules('expect: { latency: "00" }', 'r.yaml')).rejects.toThrow(/check "latency" is not graded on a response code; the rules may name authorization-reply, increment/);
    await expect(parseRules('expect: { refund: 0 }', 'r.yaml')).rejects.toThrow(/two characters/);
  });
});

describe('reports', () => {
  const secret = 'whsec_dGhlLXNlY3JldA';
  const results: CheckResult[] = [
    { name: 'authorization-reply', proves: 'p', verdict: 'pass', reason: 'replied 0110 00', evidence: [], durationMs: 10 },
    { name: 'refuse-wrong-secret', proves: 'p', verdict: 'fail', reason: `approved <a> & "b" signed with ${secret}, card ${PAN}`, evidence: [{ request: { mti: '0100', pan: PAN }, response: { code: '00' } }], durationMs: 20 },
    { name: 'partial-approval', proves: 'p', verdict: 'skip', reason: "not used ' here", evidence: [], durationMs: 5 },
  ];
  const report = buildReport(results, { version: '1.2.3', date: new Date('2026-01-02T03:04:05Z'), url: 'http://user:pw@127.0.0.1:9/hook', scheme: 'cardctl', seed: 7, sandbox: 'in-process' });

  it('JUnit: well-formed XML, one test case per check, failures and skips with their message', () => {
    const root = parseXml(scrub(junitReport(report), secret));
    const cases = elementsNamed(root, 'testcase');
    expect(cases.map((c) => c.attributes.name)).toEqual(results.map((r) => r.name));
    expect(elementsNamed(cases[1]!, 'failure')[0]!.attributes.message).toContain('approved <a> & "b"');
    expect(elementsNamed(cases[2]!, 'skipped')).toHaveLength(1);
    expect(root.attributes).toMatchObject({ tests: '3', failures: '1', skipped: '1' });
  });

  it('escapes what XML cannot hold loose, and drops what it cannot hold at all', () => {
    expect(escapeXml('<&>"\'\u0001')).toBe('&lt;&amp;&gt;&quot;&apos;');
    expect(() => parseXml('<a><b></a>')).toThrow(/not well-formed/);
    expect(() => parseXml('<a>x & y</a>')).toThrow(/loose/);
  });

  it('no secret, no full card number, no URL userinfo in any report', () => {
    for (const text of [jsonReport(report), junitReport(report), markdownReport(report)].map((t) => scrub(t, secret))) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(PAN);
      expect(text).not.toContain('user:pw');
      expect(text).toContain('539983******7895');
    }
    expect(JSON.parse(jsonReport(report))).toMatchObject({ cardctl: '1.2.3', scheme: 'cardctl', seed: 7, summary: { passed: 1, failed: 1, skipped: 1 } });
  });
});
