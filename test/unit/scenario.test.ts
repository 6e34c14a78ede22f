// Scenario files: loading (with line numbers for mistakes), templates, expectations, runs.
import { describe, expect, it } from 'vitest';
import type { SimulateBody, Transaction } from '../../src/api/schemas.js';
import { RejectedError, UsageError } from '../../src/core/errors.js';
import { check, runScenario, type SandboxHooks } from '../../src/scenario/runner.js';
import { loadScenario, MAX_SCENARIO_STEPS, resolveTemplates, templates } from '../../src/scenario/scenario.js';

const GOOD = `
name: authorize then reverse
vars: { card: c1 }
steps:
  - id: auth
    intent: authorization
    card: "{{vars.card}}"
    amount: 250.00
    expect: { responseCode: "00", transactionStatus: pending }
  - intent: reversal
    originalTx: "{{steps.auth.transactionId}}"
    amount: "{{steps.auth.amount}}"
    expect: { responseCode: 00 }
`;

function fakeSend(codes: string[]) {
  const sent: SimulateBody[] = [];
  let n = 0;
  return {
    sent,
    async send(body: SimulateBody) {
      sent.push(body);
      n += 1;
      const code = codes[(n - 1) % codes.length]!;
      const mti = body.intent === 'authorization' ? '0100' : body.intent === 'financial' ? '0200' : '0420';
      return {
        status: code === '00' ? 'success' : 'failed',
        message: '',
        data: {
          transactionId: `tx${n}`, mti, stan: String(n).padStart(6, '0'), rrn: `63261400000${n}`, responseCode: code, responseMessage: code === '00' ? 'Approved' : 'Declined',
          transactionStatus: (code === '00' ? (mti === '0100' ? 'pending' : 'completed') : 'failed') as 'pending',
          request: { '0': mti, '4': String(Math.round(body.amount * 100)).padStart(12, '0'), '49': '566' }, response: { '39': code }, duration: 1,
        },
      };
    },
  };
}

describe('loadScenario', () => {
  it('loads steps, ids, vars and --set overrides', async () => {
    const scenario = await loadScenario(GOOD, 's.yaml', { card: 'c2' });
    expect(scenario.name).toBe('authorize then reverse');
    expect(scenario.vars).toEqual({ card: 'c2' });
    expect(scenario.steps.map((s) => [s.id, s.line, s.repeat])).toEqual([['auth', 5], ['step2', 10]].map(([id, line]) => [id, line, 1]));
  });

  it('reads JSON too, and a bare list of steps', async () => {
    const json = JSON.stringify([{ id: 'a', intent: 'financial', card: 'c', amount: 5 }]);
    const scenario = await loadScenario(json, 's.json');
    expect(scenario.steps[0]!.input).toMatchObject({ intent: 'financial', amount: 5 });
  });

  it.each([
    ['steps:\n  - intent: authorization\n    card: c\n    amount: 1\n    colour: red\n', /line 5\b.*unknown key "colour"/],
    ['steps:\n  - intent: purchase\n    card: c\n    amount: 1\n', /line 2\b.*intent must be one of/],
    ['steps:\n  - intent: authorization\n    card: c\n    amount: 1.001\n', /line 2\b.*step 1.*at most 2/],
    ['steps:\n  - intent: reversal\n    originalTx: "{{steps.later.transactionId}}"\n    amount: 1\n  - id: later\n    intent: authorization\n    card: c\n    amount: 1\n', /"later", which is not an earlier step/],
    ['steps:\n  - intent: authorization\n    card: "{{vars.card}}"\n    amount: 1\n', /\{\{vars\.card\}\} is not defined.*--set card=VALUE/],
    ['steps:\n  - id: a\n    intent: authorization\n    card: c\n    amount: 1\n  - id: a\n    intent: authorization\n    card: c\n    amount: 1\n', /line 6\b.*"a" is used twice/],
    ['steps: []\n', /non-empty list/],
    ['nme: x\nsteps: []\n', /line 1\b.*unknown key "nme"/],
    ['steps:\n  - intent: authorization\n    card: c\n   amount: 1\n', /line \d+/],
    ['steps:\n  - intent: authorization\n    amount: 1\n', /step 1.*a card is required/],
    ['steps:\n  - intent: authorization\n    card: c\n    amount: 1\n    repeat: 0\n', /repeat must be/],
  ])('refuses bad files with the line and step (%#)', async (text, message) => {
    const attempt = loadScenario(text, 'bad.yaml');
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(loadScenario(text, 'bad.yaml')).rejects.toThrow(message);
  });
});

describe('templates and expectations', () => {
  it('resolves vars and earlier results, keeping types for whole-value templates', () => {
    const scope = { vars: { card: 'c1' }, steps: { auth: { transactionId: 't1', duration: 5, request: { '4': '000000025000' } } } };
    expect(resolveTemplates({ a: '{{vars.card}}', b: 'x-{{steps.auth.transactionId}}-y', c: '{{steps.auth.duration}}', d: '{{ steps.auth.request.4 }}' }, scope))
      .toEqual({ a: 'c1', b: 'x-t1-y', c: 5, d: '000000025000' });
    expect(() => resolveTemplates('{{steps.auth.nope}}', scope)).toThrow(UsageError);
  });

  it('compares result fields; lists mean any of; YAML numbers match two-digit codes', () => {
    const result = { responseCode: '05', transactionStatus: 'failed' as const, approved: false, response: { '39': '05' } };
    expect(check({ responseCode: 5, approved: false, 'response.39': '05' }, result)).toEqual([]);
    expect(check({ responseCode: ['00', '05'] }, result)).toEqual([]);
    expect(check({ responseCode: '00', transactionStatus: 'pending' }, result)).toEqual([
      'expected responseCode "00", got "05"',
      'expected transactionStatus "pending", got "failed"',
    ]);
    expect(check(undefined, { outcome: 'error', errorMessage: 'boom' })).toEqual(['the simulator refused the request: boom']);
    expect(check({ error: 'CONFLICT' }, { outcome: 'error', error: 'CONFLICT' })).toEqual([]);
    expect(check({ constructor: 'x', 'response.toString': null }, result)).toEqual(['expected constructor "x", got nothing']);
  });
});

describe('bounds', () => {
  // About a megabyte each: the old pattern (\s* around a lazy reference) took 15 s on 2 KB of these.
  const MEGABYTE = 1_000_000;
  it.each([
    ['{{ and spaces', `{{${' '.repeat(MEGABYTE)}`],
    ['{{ repeated', '{{ '.repeat(MEGABYTE / 3)],
    ['{{ and a lone }', `{{${' '.repeat(MEGABYTE)}}x`],
    ['{ repeated', '{'.repeat(MEGABYTE)],
  ])('scans templates in linear time: %s', (_what, text) => {
    const started = performance.now();
    expect(templates(text)).toEqual([]);
    expect(resolveTemplates(text, { vars: {}, steps: {} })).toBe(text);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('loads a scenario holding a megabyte of {{ and spaces at once', async () => {
    const text = `steps:\n  - intent: authorization\n    card: c\n    amount: 1\n    merchant: "{{${' '.repeat(1_000_000)}"\n`;
    const started = performance.now();
    const scenario = await loadScenario(text, 's.yaml');
    expect(scenario.steps[0]!.input.merchant).toHaveLength(1_000_002);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('finds templates as before: white space trimmed, the first } ends them, unclosed ones are text', () => {
    expect(templates('a {{ vars.x }} b {{steps.s.id}}').map((t) => t.ref)).toEqual(['vars.x', 'steps.s.id']);
    expect(templates('{{{a}}')).toEqual([{ start: 0, end: 6, ref: '{a' }]);
    expect(templates('{{a}b}} {{}} {{c')).toEqual([]);
    expect(resolveTemplates('x{{vars.a}}y{{ vars.a }}z', { vars: { a: '1' }, steps: {} })).toBe('x1y1z');
  });

  it.each(['toString', 'constructor', '__proto__', 'hasOwnProperty'])('a var or step field named %s is only what the scenario holds', async (name) => {
    const text = `steps:\n  - intent: authorization\n    card: "{{vars.${name}}}"\n    amount: 1\n`;
    await expect(loadScenario(text, 's.yaml')).rejects.toThrow(`{{vars.${name}}} is not defined`);
    const given = await loadScenario(text, 's.yaml', { [name]: 'c9' });
    expect(resolveTemplates(given.steps[0]!.input.card, { vars: given.vars, steps: {} })).toBe('c9');
    expect(() => resolveTemplates(`{{steps.a.${name}}}`, { vars: {}, steps: { a: {} } })).toThrow(`{{steps.a.${name}}} has no value`);
  });

  it(`holds at most ${MAX_SCENARIO_STEPS} steps`, async () => {
    const steps = Array.from({ length: MAX_SCENARIO_STEPS + 1 }, () => ({ intent: 'authorization', card: 'c', amount: 1 }));
    await expect(loadScenario(JSON.stringify({ steps }), 's.json')).rejects.toThrow(/1001 steps, more than the 1000 a scenario may hold/);
  });
});

describe('runScenario', () => {
  it('runs steps in order, feeding results into later steps', async () => {
    const fake = fakeSend(['00']);
    const scenario = await loadScenario(GOOD, 's.yaml');
    const reports: string[] = [];
    const summary = await runScenario(scenario, { send: fake.send, onStep: (r) => reports.push(`${r.id}:${r.passed}`) });
    expect(summary).toMatchObject({ passed: 2, failed: 0, total: 2 });
    expect(reports).toEqual(['auth:true', 'step2:true']);
    expect(fake.sent[1]).toMatchObject({ intent: 'reversal', originalTransactionId: 'tx1', amount: 250 });
  });

  it('counts failed expectations, repeats steps, and treats 4xx as a result', async () => {
    const text = `
steps:
  - id: burn
    intent: financial
    card: c
    amount: 1
    repeat: 3
    expect: { responseCode: "00" }
  - id: again
    intent: reversal
    originalTx: "{{steps.burn.transactionId}}"
    amount: 1
    expect: { error: CONFLICT }
`;
    const fake = fakeSend(['00', '65', '00']);
    let calls = 0;
    const summary = await runScenario(await loadScenario(text, 's.yaml'), {
      send: async (body) => {
        calls += 1;
        if (body.intent === 'reversal') throw new RejectedError('rejected (409): already reversed', { code: 'CONFLICT', status: 409 });
        return fake.send(body);
      },
    });
    expect(calls).toBe(4);
    expect(summary).toMatchObject({ passed: 3, failed: 1, total: 4 });
    expect(summary.steps[1]).toMatchObject({ id: 'burn', iteration: 2, passed: false, failures: ['expected responseCode "00", got "65"'] });
    expect(summary.steps[3]).toMatchObject({ id: 'again', passed: true, result: { error: 'CONFLICT', httpStatus: 409 } });
    expect(fake.sent[2]).toMatchObject({ intent: 'financial' });
  });
});

describe('lifecycle steps', () => {
  /** A sandbox that records what it was asked, answering approvals and a lifecycle that settles on the second read. */
  function fakeSandbox() {
    const calls: string[] = [];
    let reads = 0;
    const answer = (transactionId: string, mti: string) => ({
      status: 'success', message: '',
      data: { transactionId, mti, stan: '000009', rrn: '632614000009', responseCode: '00', responseMessage: 'Approved', transactionStatus: 'pending' as const, request: { '0': mti, '4': '000000025000' }, response: { '39': '00' }, duration: 1 },
    });
    const sandbox: SandboxHooks = {
      async lifecycle(body) { calls.push(`lifecycle ${JSON.stringify(body)}`); return answer('inc1', '0100'); },
      async repeat(id, forward) { calls.push(`repeat ${id} ${forward}`); return answer(id, '0101'); },
      async expire(id) { calls.push(`expire ${id}`); return { id, mti: '0100', stan: '1', rrn: '2', responseCode: '00', transactionStatus: 'reversed', releaseReason: 'expiry' } as Transaction; }, // the runner reads only the id of what expire() answers
      async advanceClock(seconds) { calls.push(`clock ${seconds}`); return { now: 'later', offsetSeconds: seconds, expired: 1 }; },
      async deliverAdvices() { calls.push('deliver'); return { delivered: 1, pending: 0 }; },
      async standIn(program) { calls.push(`stand-in? ${program}`); return { mode: 'approve', maxAmount: 1, dailyAmount: 2 }; },
      async setStandIn(program, standIn, options) { calls.push(`stand-in ${program} ${standIn.mode}${options?.restore ? ' (restore)' : ''}`); },
      async withWebhookFaults(faults, work) {
        calls.push(`faults ${faults.spec} ${faults.seed}`);
        try { return await work(); } finally { calls.push('faults put back'); }
      },
      async state(result, parts) {
        reads += 1;
        calls.push(`state ${result.transactionId} ${[...parts].join(',')}`);
        return { lifecycle: { amounts: { held: reads >= 2 ? 0 : 100 } } };
      },
    };
    return { sandbox, calls };
  }

  it('sends lifecycle messages and sandbox actions, sets faults for one step only, and reads the state again within the time given', async () => {
    const text = `
vars: { card: c1, program: p1 }
steps:
  - { id: auth, intent: authorization, card: "{{vars.card}}", amount: 100 }
  - { id: inc, intent: increment, originalTx: "{{steps.auth.transactionId}}", amount: 250, forward: true, webhookFaults: "reply-lost=1", webhookFaultsSeed: 7 }
  - { id: again, intent: repeat, tx: "{{steps.auth.transactionId}}", expect: { mti: "0101", transactionId: tx1 } }
  - { id: gone, intent: expire, originalTx: "{{steps.auth.transactionId}}", expect: { transaction.releaseReason: expiry, lifecycle.amounts.held: 0 }, within: 1s }
  - { id: week, intent: clock, advance: 7d, expect: { clock.expired: 1 } }
  - { id: advices, intent: deliver-advices, expect: { advices.pending: 0 } }
  - { id: policy, intent: stand-in, program: "{{vars.program}}", standIn: { mode: approve, maxAmount: 500, dailyAmount: 2000 } }
`;
    const { sandbox, calls } = fakeSandbox();
    const summary = await runScenario(await loadScenario(text, 's.yaml'), { send: fakeSend(['00']).send, sandbox, sleep: async () => {} });
    expect(summary.steps.map((s) => s.failures)).toEqual([[], [], [], [], [], [], []]);
    expect(calls).toEqual([
      'faults reply-lost=1 7', 'lifecycle {"message":"increment","originalTransactionId":"tx1","amount":250,"responseMode":"forward"}', 'faults put back',
      'repeat tx1 false',
      'expire tx1', 'state tx1 transaction,lifecycle', 'state tx1 transaction,lifecycle',
      'clock 604800',
      'deliver',
      'stand-in? p1', 'stand-in p1 approve',
      // The run is over: the policy from before it is back.
      'stand-in p1 approve (restore)',
    ]);
    expect(summary.steps[4]!.result.summary).toBe('clock +604800 s: now later, 1 hold released');
  });

  it('stopped mid-step (Ctrl-C, an error), the run takes the step\'s faults off and puts back the stand-in policies it changed', async () => {
    const { sandbox, calls } = fakeSandbox();
    const controller = new AbortController();
    const text = `
steps:
  - { intent: stand-in, program: p1, standIn: { mode: decline } }
  - { intent: stand-in, program: p1, standIn: { mode: approve, maxAmount: 9, dailyAmount: 9 } }
  - { intent: authorization, card: c, amount: 1, webhookFaults: "delay=5000ms" }
  - { intent: authorization, card: c, amount: 1 }
`;
    const send = async () => {
      controller.abort(new Error('interrupted'));
      throw new Error('request aborted');
    };
    await expect(runScenario(await loadScenario(text, 's.yaml'), { send, sandbox, signal: controller.signal })).rejects.toThrow('request aborted');
    expect(calls).toEqual([
      'stand-in? p1', 'stand-in p1 decline',
      'stand-in p1 approve',
      'faults delay=5000ms undefined', 'faults put back',
      'stand-in p1 approve (restore)',
    ]);
  });

  it('a run that ends normally, failed expectations or not, puts back every stand-in policy it changed, once each', async () => {
    const { sandbox, calls } = fakeSandbox();
    const text = `
steps:
  - { intent: stand-in, program: p1, standIn: { mode: decline } }
  - { intent: stand-in, program: p2, standIn: { mode: decline } }
  - { intent: stand-in, program: p1, standIn: { mode: approve, maxAmount: 9, dailyAmount: 9 } }
  - { intent: authorization, card: c, amount: 1, expect: { responseCode: "05" } }
`;
    const summary = await runScenario(await loadScenario(text, 's.yaml'), { send: fakeSend(['00']).send, sandbox });
    expect(summary.failed).toBe(1);
    expect(calls).toEqual([
      'stand-in? p1', 'stand-in p1 decline',
      'stand-in? p2', 'stand-in p2 decline',
      'stand-in p1 approve',
      'stand-in p1 approve (restore)', 'stand-in p2 approve (restore)',
    ]);
  });

  it('a state expectation that never holds fails once within runs out', async () => {
    const { sandbox } = fakeSandbox();
    const text = 'steps: [{ intent: authorization, card: c, amount: 1, expect: { lifecycle.amounts.held: 5 } }]';
    const summary = await runScenario(await loadScenario(text, 's.yaml'), { send: fakeSend(['00']).send, sandbox });
    expect(summary.steps[0]!.failures).toEqual(['expected lifecycle.amounts.held 5, got 100']);
  });

  it.each([
    ['steps: [{ intent: increment, amount: 1 }]', /step 1 \(step1\): an increment needs the original: originalTx/],
    ['steps: [{ intent: refund, originalTx: t, amount: 1, card: c }]', /step 1 \(step1\): "card" is not a key of refund steps/],
    ['steps: [{ intent: advice, card: c, amount: 1, networkCode: "x" }]', /invalid networkCode "X"/],
    ['steps: [{ intent: clock, advance: soon }]', /advance "soon" must be a duration/],
    ['steps: [{ intent: repeat }]', /repeat steps need tx/],
    ['steps: [{ intent: stand-in, program: p, standIn: { mode: maybe } }]', /standIn.mode must be decline or approve/],
    ['steps: [{ intent: authorization, card: c, amount: 1, webhookFaults: "reply-lost=2" }]', /(line 1).*webhookFaults: .*reply-lost/],
    ['steps: [{ intent: authorization, card: c, amount: 1, within: forever }]', /within must be a duration up to 60s/],
    ['steps: [{ intent: teleport }]', /intent must be one of authorization, financial, reversal, increment, completion, refund, advice, repeat, expire, clock, deliver-advices, stand-in, check/],
  ])('refuses %s before anything is sent', async (text, message) => {
    await expect(loadScenario(text, 's.yaml')).rejects.toThrow(message);
  });
});
